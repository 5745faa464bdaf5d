/**
 * A run's progress, written while it goes so that a page polling the run shows its searches and pages as they happen.
 * The research's entries are gathered in memory and written a quarter of a second after the first, then at most once a
 * second (each write carries the whole list, so a retried step repeats nothing). What is not written when the agent
 * answers goes with the answer: the record step adds it with the decision and what was sent, in its transaction (a
 * run that answers at once writes its progress once, there).
 */
import type { ProgressEntry } from "../agent/progress";
import { sql } from "../db/sql";
import { log } from "../observability/log.mjs";

export type ProgressLine = ProgressEntry & { at: string };

const FIRST_FLUSH_MS = 250;
const FLUSH_EVERY_MS = 1_000;
/** A run's steps are bounded (a few searches and pages each); the list is too, whatever a provider reports. */
const MAX_LINES = 60;

export function progressWriter(executionId: string) {
  const lines: ProgressLine[] = [];
  let timer: NodeJS.Timeout | undefined;
  /** How many of the lines the last write stored. */
  let written = 0;
  let writing: Promise<unknown> = Promise.resolve();
  const flush = () => {
    timer = undefined;
    const [snapshot, count] = [JSON.stringify(lines), lines.length];
    writing = writing
      .then(() =>
        sql(`UPDATE executions SET progress = $2::jsonb WHERE id = $1 AND status = 'running'`, [executionId, snapshot]),
      )
      .then(() => (written = count))
      .catch((e: unknown) => log.warn({ err: e, execution_id: executionId }, "progress not written"));
    return writing;
  };
  return {
    add: (entries: ProgressEntry[]) => {
      const at = new Date().toISOString();
      for (const e of entries) if (lines.length < MAX_LINES) lines.push({ ...e, at });
      timer ??= setTimeout(flush, lines.length === entries.length ? FIRST_FLUSH_MS : FLUSH_EVERY_MS);
    },
    /** Stops; resolves, once a write under way is done, to the lines no write stored (for the record step). */
    close: async (): Promise<ProgressLine[]> => {
      clearTimeout(timer);
      timer = undefined;
      await writing;
      return lines.slice(written);
    },
    /** Writes what is pending and stops (a run whose record adds no progress). */
    flush: async () => {
      clearTimeout(timer);
      await flush();
    },
  };
}

const percent = (confidence: number) => `${Math.round(confidence * 100)}% sure`;

/** The record step's lines: what the agent decided, and whom the run's notices go to. */
export function decisionProgress(
  at: Date,
  o: {
    condition_met: boolean;
    confidence: number;
    findingTitle: string | null;
    isNew: boolean;
    held: string | null;
    notified: boolean;
    retracted: boolean;
    channels: string[];
  },
): ProgressLine[] {
  const when = at.toISOString();
  const decided = !o.condition_met
    ? "Not met"
    : o.held !== null
      ? `Met · ${percent(o.confidence)} · held: ${o.held}`
      : o.isNew
        ? `Met · ${percent(o.confidence)} · new finding${o.findingTitle ? `: ${o.findingTitle}` : ""}`
        : `Met · ${percent(o.confidence)}${o.findingTitle ? ` · confirms: ${o.findingTitle}` : ""}`;
  const lines: ProgressLine[] = [{ at: when, step: "decide", detail: decided }];
  const to = o.channels.length ? `${o.channels.join(", ")} and followers` : "followers (the watch has no channel)";
  if (o.notified) lines.push({ at: when, step: "notify", detail: `Sending the finding to ${to}` });
  if (o.retracted) lines.push({ at: when, step: "notify", detail: `Sending the retraction to ${to}` });
  return lines;
}
