/**
 * Discord's limits (Execute Webhook and Embed Limits, discord-api-docs): content 2,000 characters, 10 embeds; an embed's
 * title 256, description 4,096, 25 fields, a field's name 256 and value 1,024, footer 2,048, author name 256; and all
 * the text of a message's embeds (titles, descriptions, field names and values, footers, author names) 6,000 together.
 */
import type { APIEmbed, RESTPostAPIWebhookWithTokenJSONBody } from "discord-api-types/v10";
import { defineLimits, type Measured, type Rendered } from "../kit/fit";

/** What counts toward an embed's share of the 6,000 characters. */
export const embedText = (e: APIEmbed) =>
  [e.title, e.description, ...(e.fields ?? []).flatMap((f) => [f.name, f.value]), e.footer?.text, e.author?.name].join(
    "",
  );

export const DISCORD = defineLimits({
  max: {
    content: { max: 2000, unit: "characters" },
    embeds: { max: 10, unit: "items" },
    "embed title": { max: 256, unit: "characters" },
    "embed description": { max: 4096, unit: "characters" },
    fields: { max: 25, unit: "items" },
    "field name": { max: 256, unit: "characters" },
    "field value": { max: 1024, unit: "characters" },
    "footer text": { max: 2048, unit: "characters" },
    "author name": { max: 256, unit: "characters" },
    "embed text": { max: 6000, unit: "characters" },
  },
  measure({ body }) {
    const { content = "", embeds = [] } = body as RESTPostAPIWebhookWithTokenJSONBody;
    return [
      ["content", "content", content],
      ["embeds", "embeds", embeds],
      ["embed text", "embeds", embeds.map(embedText).join("")],
      ...embeds.flatMap((e, i): Measured[] => [
        ["embed title", `embeds[${i}].title`, e.title ?? ""],
        ["embed description", `embeds[${i}].description`, e.description ?? ""],
        ["fields", `embeds[${i}].fields`, e.fields ?? []],
        ["footer text", `embeds[${i}].footer.text`, e.footer?.text ?? ""],
        ["author name", `embeds[${i}].author.name`, e.author?.name ?? ""],
        ...(e.fields ?? []).flatMap((f, k): Measured[] => [
          ["field name", `embeds[${i}].fields[${k}].name`, f.name],
          ["field value", `embeds[${i}].fields[${k}].value`, f.value],
        ]),
      ]),
    ];
  },
  texts({ body }) {
    const { content = "", embeds = [] } = body as RESTPostAPIWebhookWithTokenJSONBody;
    return [
      { markup: "markdown", text: content },
      ...embeds.flatMap((e): Rendered[] => [
        { markup: "markdown", text: e.title ?? "" },
        { markup: "markdown", text: e.description ?? "" },
        ...(e.fields ?? []).flatMap((f): Rendered[] => [
          { markup: "plain", text: f.name },
          { markup: "markdown", text: f.value },
        ]),
        { markup: "plain", text: e.footer?.text ?? "" },
      ]),
    ];
  },
  // @everyone, @here, <@123>, <@!123>, <@&123> (role), <#123> (a channel link) unless backslash-escaped.
  mentions: /@(everyone|here)\b|(?<!\\)<[@#]/,
});
