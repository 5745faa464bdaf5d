/** Options several commands take: channels (--email, --webhook, --notify), trust and cadence bounds, numbers. */
import { Option } from "commander";
import { APPRISE_SCHEMES, parseApprise } from "../../channels/apprise";
import { AppriseError } from "../../channels/kit/apprise";
import type { Notification } from "../index";
import { UsageError } from "./context";

export type ChannelOptions = { email?: string; webhook?: string; notify?: string[] };

/** Collects a repeatable option's values. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

export const NOTIFY_HELP = `notify this channel (repeatable): an Apprise URL (${APPRISE_SCHEMES.map((s) => `${s}://`).join(", ")}) or the service's own URL`;

/** How a refused --notify URL is named: its scheme only (the rest may be a secret, and terminals keep scrollback). */
const named = (url: string) => {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url.trim())?.[1];
  return scheme ? `--notify ${scheme.toLowerCase()}://…` : "--notify";
};

/**
 * The channels `--email`, `--webhook` and each `--notify <url>` (an Apprise URL or the service's own) give, replacing
 * those of the same type in `existing` and keeping the others; undefined when none was given.
 */
export function notificationsFrom(opts: ChannelOptions, existing: Notification[] = []): Notification[] | undefined {
  const given: Notification[] = [];
  if (opts.email) given.push({ type: "email", address: opts.email });
  if (opts.webhook) given.push({ type: "webhook", url: opts.webhook });
  for (const url of opts.notify ?? []) {
    try {
      given.push(parseApprise(url) as Notification);
    } catch (e) {
      if (e instanceof AppriseError) throw new UsageError(`${named(url)}: ${e.message}`);
      throw e;
    }
  }
  if (!given.length && opts.email === undefined && opts.webhook === undefined) return undefined;
  const types = given.map((n) => n.type);
  const twice = types.find((t, i) => types.indexOf(t) !== i);
  if (twice) throw new UsageError(`one ${twice} channel per watch: give it once`);
  // `--email ""` and `--webhook ""` remove that channel.
  const replaced = new Set<string>([
    ...types,
    ...(opts.email !== undefined ? ["email"] : []),
    ...(opts.webhook !== undefined ? ["webhook"] : []),
  ]);
  return [...existing.filter((n) => !replaced.has(n.type)), ...given];
}

export type Bounds = {
  minConfidence?: number;
  minSources?: number;
  checkAtMostEvery?: number;
  checkAtLeastEvery?: number;
};

export const minConfidence = () =>
  new Option("--min-confidence <0-1>", "notify only for findings at least this confident (default 0.6)").argParser(
    parseConfidence,
  );
export const minSources = () =>
  new Option("--min-sources <n>", "notify only when this many independent sites confirm it (1-5, default 1)").argParser(
    parsePositive,
  );
export const checkAtMostEvery = () =>
  new Option("--check-at-most-every <duration>", "the agent checks no more often than this, e.g. 1h").argParser(
    parseMinutes,
  );
export const checkAtLeastEvery = () =>
  new Option("--check-at-least-every <duration>", "the agent checks at least this often, e.g. 7d").argParser(
    parseMinutes,
  );

export const boundsFrom = (o: Bounds) => ({
  min_confidence: o.minConfidence,
  min_sources: o.minSources,
  min_interval_minutes: o.checkAtMostEvery,
  max_interval_minutes: o.checkAtLeastEvery,
});

function parseConfidence(v: string) {
  const n = Number(v);
  if (v.trim() === "" || !(n >= 0 && n <= 1)) throw new UsageError(`expected a confidence between 0 and 1, got "${v}"`);
  return n;
}

/** "90", "90m", "1h", "7d" → minutes. */
function parseMinutes(v: string) {
  const match = /^(\d+)\s*(m|min|h|d)?$/i.exec(v.trim());
  if (!match) throw new UsageError(`expected a duration like 30m, 1h or 7d, got "${v}"`);
  const unit = { m: 1, min: 1, h: 60, d: 1440 }[(match[2] ?? "m").toLowerCase() as "m" | "min" | "h" | "d"];
  return Number(match[1]) * unit;
}

export function parsePositive(v: string) {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`expected a positive whole number, got "${v}"`);
  return n;
}

export function parseCount(v: string) {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`expected a whole number (0 or more), got "${v}"`);
  return n;
}
