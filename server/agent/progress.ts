/**
 * What a run is doing, in the owner's words, as its research goes: each search it makes and each page it reads. Read
 * from each finished step of the model (its tool calls, and the pages a provider's own search grounded it on).
 */
import { isGroundingRedirect } from "./sources";

export type ProgressEntry = { step: "search" | "read" | "decide" | "notify"; detail: string };

type Step = {
  toolCalls: { toolName: string; input: unknown }[];
  sources: { sourceType: string; url?: string; title?: string }[];
};

const MAX_DETAIL = 300;
const clip = (s: string) => (s.length > MAX_DETAIL ? `${s.slice(0, MAX_DETAIL - 1)}…` : s);

/** One entry per search and per page read in a finished step; a provider's redirector link is named by its site. */
export function stepProgress(step: Step): ProgressEntry[] {
  const entries: ProgressEntry[] = [];
  for (const call of step.toolCalls) {
    const input = (call.input ?? {}) as { query?: unknown; url?: unknown };
    if (typeof input.query === "string") entries.push({ step: "search", detail: clip(input.query) });
    else if (typeof input.url === "string") entries.push({ step: "read", detail: clip(input.url) });
  }
  for (const s of step.sources) {
    if (s.sourceType !== "url" || !s.url) continue;
    const page = isGroundingRedirect(s.url) && s.title ? s.title : s.url;
    entries.push({ step: "read", detail: clip(page) });
  }
  return entries;
}
