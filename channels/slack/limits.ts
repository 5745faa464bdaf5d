/**
 * Slack's Block Kit limits (docs.slack.dev, block reference): a header's text 150 characters, a section's text 3,000,
 * a context element's text 3,000, a button's text 75 and its URL 3,000, 50 blocks a message; the top-level `text`
 * (the notification's fallback) is cut by Slack past 40,000.
 */
import type { KnownBlock } from "@slack/types";
import { defineLimits, type Measured, type Rendered } from "../kit/fit";

type Body = { text: string; blocks: KnownBlock[] };
type TextObject = { type: "plain_text" | "mrkdwn"; text: string };

/** Every text object of a block, with where it is. */
function textsOf(block: KnownBlock, at: string): [TextObject, string, "header" | "section" | "context" | "button"][] {
  switch (block.type) {
    case "header":
      return [[block.text, `${at}.text`, "header"]];
    case "section":
      return block.text ? [[block.text as TextObject, `${at}.text`, "section"]] : [];
    case "context":
      return block.elements.flatMap((e, i) =>
        "text" in e && typeof e.text === "string"
          ? [[e as TextObject, `${at}.elements[${i}]`, "context"] as const]
          : [],
      ) as [TextObject, string, "context"][];
    case "actions":
      return block.elements.flatMap((e, i) =>
        e.type === "button" ? [[e.text as TextObject, `${at}.elements[${i}].text`, "button"] as const] : [],
      ) as [TextObject, string, "button"][];
    default:
      return [];
  }
}

const NAME = { header: "header text", section: "section text", context: "context text", button: "button text" };

export const SLACK = defineLimits({
  max: {
    "header text": { max: 150, unit: "characters" },
    "section text": { max: 3000, unit: "characters" },
    "context text": { max: 3000, unit: "characters" },
    "button text": { max: 75, unit: "characters" },
    "button url": { max: 3000, unit: "characters" },
    blocks: { max: 50, unit: "items" },
    "fallback text": { max: 40_000, unit: "characters" },
  },
  measure({ body }) {
    const { text, blocks } = body as Body;
    const measured: Measured[] = [
      ["blocks", "blocks", blocks],
      ["fallback text", "text", text],
    ];
    blocks.forEach((block, i) => {
      for (const [t, at, kind] of textsOf(block, `blocks[${i}]`)) measured.push([NAME[kind], at, t.text]);
      if (block.type === "actions")
        block.elements.forEach((e, k) => {
          if (e.type === "button" && e.url) measured.push(["button url", `blocks[${i}].elements[${k}].url`, e.url]);
        });
    });
    return measured;
  },
  texts({ body }) {
    const { text, blocks } = body as Body;
    return [
      { markup: "mrkdwn", text },
      ...blocks.flatMap((b, i) =>
        textsOf(b, `blocks[${i}]`).map(([t]): Rendered => ({
          markup: t.type === "mrkdwn" ? "mrkdwn" : "plain",
          text: t.text,
        })),
      ),
    ];
  },
  // <!channel>, <!here>, <!everyone>, <!subteam^…>, <@U123>, <#C123>: a bare @here in a webhook's text notifies no one.
  mentions: /<[!@#]/,
});
