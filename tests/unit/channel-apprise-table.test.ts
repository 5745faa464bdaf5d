/**
 * Every URL of Apprise's own plugin tests (Apprise 1.13.0, tests/test_plugin_<service>.py, with the retired msteams
 * suite) for the channels read here, with what Apprise itself did with it (tests/fixtures/apprise-urls.json: Apprise run
 * on each URL, its requests recorded). Each either reads as the config of exactly the endpoint Apprise posts to, with
 * the options that change nothing in what Watch sends listed as ignored, or is refused with the message naming what
 * Watch does not support, and no message repeats a token of the URL.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { AppriseError, readApprise } from "@/channels";

type Row = {
  service: string;
  url: string;
  watch: { config: Record<string, unknown> } | { refuse: string };
  ignored: string[] | null;
};

/** The Apprise services whose URLs these channels read (the other rows belong to channels listed elsewhere). */
const SERVICES = ["slack", "discord", "telegram", "ntfy", "workflows", "msteams"];

const ROWS = (JSON.parse(readFileSync("tests/fixtures/apprise-urls.json", "utf8")) as Row[]).filter((r) =>
  SERVICES.includes(r.service),
);

/**
 * Where Watch answers otherwise than the table, and why: an https address of no service Watch knows is not read as any
 * one service's (the table names one service per row), it is refused as not recognised, with the webhook offered.
 */
const OTHERWISE: Record<string, string> = {
  "https://not-slack.com/services/ABC/DEF/GHI": "not a URL Watch recognises",
  "https://just/a/random/host/that/means/nothing": "not a URL Watch recognises",
};

/** An option's name as listed ("format=markdown", "ref=http://… (not an option …)"). */
const optionName = (listed: string) => listed.split("=")[0]!.toLowerCase();

/** The long runs of letters and digits of the URL's address and option values: its tokens, signatures and ids. */
const tokensOf = (url: string) => {
  const [address = "", query = ""] = url.split(/\?(.*)/s);
  const values = query.split("&").map((pair) => pair.slice(pair.indexOf("=") + 1));
  return [address, ...values].flatMap((part) => part.split(/[^A-Za-z0-9_]+/)).filter((t) => t.length >= 10);
};

function refusal(url: string): AppriseError {
  try {
    readApprise(url);
  } catch (error) {
    if (error instanceof AppriseError) return error;
    throw error;
  }
  throw new Error("read, not refused");
}

describe.each(SERVICES)("%s: Apprise's own test URLs", (service) => {
  const rows = ROWS.filter((r) => r.service === service);

  it.each(rows.map((r, i) => [i + 1, r.url, r] as const))("#%i %s", (_n, url, row) => {
    if ("config" in row.watch) {
      const reading = readApprise(url);
      expect(reading.config).toEqual(row.watch.config);
      expect(reading.ignored.map((o) => o.toLowerCase()).sort()).toEqual((row.ignored ?? []).map(optionName).sort());
    } else {
      const { message } = refusal(url);
      if (OTHERWISE[url]) expect(message).toContain(OTHERWISE[url]);
      else expect(message).toBe(row.watch.refuse);
      for (const token of tokensOf(url)) expect(message).not.toContain(token);
    }
  });
});
