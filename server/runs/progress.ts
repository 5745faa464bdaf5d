/**
 * A run's progress, written while it goes so that a page polling the run shows its searches and pages as they happen.
 * The research's entries are gathered in memory and written at most once a second (each write carries the whole list,
 * so a retried step repeats nothing); the decision and what was sent are added by the record step, in its transaction.
 */
import type { ProgressEntry } from "../agent/progress";
import { sql } from "../db/sql";
import { log } from "../observability/log.mjs";

export type ProgressLine = ProgressEntry & { at: string };

const FLUSH_EVERY_MS = 1_000;
/** A run's steps are bounded (a few searches and pages each); the list is too, whatever a provider reports. */
const MAX_LINES = 60;

export function progressWriter(executionId: string) {
  const lines: ProgressLine[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<unknown> = Promise.resolve();
  const flush = () => {
    timer = undefined;
    const snapshot = JSON.stringify(lines);
    writing = writing
      .then(() =>
        sql(`UPDATE executions SET progress = $2::jsonb WHERE id = $1 AND status = 'running'`, [executionId, snapshot]),
      )
      .catch((e: unknown) => log.warn({ err: e, execution_id: executionId }, "progress not written"));
    return writing;
  };
  return {
    add: (entries: ProgressEntry[]) => {
      const at = new Date().toISOString();
      for (const e of entries) if (lines.length < MAX_LINES) lines.push({ ...e, at });
      timer ??= setTimeout(flush, lines.length === entries.length ? 0 : FLUSH_EVERY_MS);
    },
    /** Writes what is pending and stops; resolves once written. */
    close: async () => {
      if (timer) {
        clearTimeout(timer);
        await flush();
      }
      await writing;
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
