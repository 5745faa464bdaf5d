/**
 * The verdict's states, one per case, as the one function decides them and every surface says them: the owner's and
 * the public view, the badge and the sentence of the Open Graph image and emails. Beside them, the words a card shows
 * of an answer, and how a failed run and a failed send are classed.
 */
import { describe, expect, it } from "vitest";
import { deliveryFailure, INTERRUPTED } from "@/server/notify/deliveries";
import { verdictBadge, verdictLabel, verdictSentence } from "@/server/public/verdict";
import { RUN_FAILURES, runFailure } from "@/lib/outcome";
import { firstSentence } from "@/server/tasks/results";
import { verdictFor, type NotifiedExecution } from "@/server/tasks/views";

const at = (day: number, hour = 9) => new Date(Date.UTC(2026, 10, day, hour));
const finding: NotifiedExecution = {
  retracted_by_execution_id: null,
  completed_at: at(2),
  created_at: at(2),
  result: { condition_met: true, answer: "Yes." },
  grounding_sources: [],
};
/** An active watch checked on the 3rd with nothing standing, nothing held, nothing failing, no check under way. */
const base = {
  state: "active" as const,
  state_changed_at: at(1),
  next_run: at(4) as Date | null,
  notified_execution: null as NotifiedExecution | null,
  open_run: null as { status: string; started_at: Date } | null,
  latest_answer_at: at(3) as Date | null,
  public_answer_at: at(3) as Date | null,
  failure_streak: 0,
  failing_since: null as Date | null,
  held_reason: null as string | null,
  finding_at: null as Date | null,
  executions: [] as { error_message: string | null }[],
};
const iso = (d: Date) => d.toISOString();
const failing = {
  failure_streak: 3,
  failing_since: at(3, 12),
  executions: [{ error_message: "Model provider error from google:gemini: HTTP 503 Service Unavailable" }],
};

/** Each case: the watch, then its verdict for the owner and for anyone else, with their badge and sentence. */
const CASES: [string, Partial<typeof base>, Record<string, unknown>, Record<string, unknown>, string, string][] = [
  [
    "met: the notified finding stands",
    { notified_execution: finding, finding_at: at(2) },
    { state: "met", since: iso(at(2)), as_of: iso(at(3)) },
    { state: "met", since: iso(at(2)) },
    "met · 2 Nov 2026",
    "Yes, found 2 Nov 2026",
  ],
  [
    "not_yet: checked, nothing found",
    {},
    { state: "not_yet", since: null, as_of: iso(at(3)) },
    { state: "not_yet" },
    "not yet",
    "Not yet (checked 3 Nov 2026)",
  ],
  [
    "not_yet: what was found was retracted",
    { notified_execution: { ...finding, retracted_by_execution_id: "e2" }, finding_at: at(3) },
    { state: "not_yet" },
    { state: "not_yet" },
    "not yet",
    "Not yet (checked 3 Nov 2026)",
  ],
  [
    "held: found, not sent (the public sees what it saw before)",
    { held_reason: "1 independent source, 2 required", finding_at: at(3), public_answer_at: at(2) },
    { state: "held", since: iso(at(3)), reason: "1 independent source, 2 required", as_of: iso(at(3)) },
    { state: "not_yet", reason: null, as_of: iso(at(2)) },
    "found, not sent",
    "Found, not sent yet: held back by the watch's bounds",
  ],
  [
    "held over a standing finding: met for anyone else",
    { held_reason: "confidence 0.5 is below 0.6", notified_execution: finding, finding_at: at(3) },
    { state: "held", reason: "confidence 0.5 is below 0.6" },
    { state: "met", since: iso(at(2)) },
    "found, not sent",
    "Found, not sent yet: held back by the watch's bounds",
  ],
  [
    "paused: the last answer as of its date, never watching",
    { state: "paused" as never, state_changed_at: at(3, 18), next_run: null },
    { state: "paused", since: iso(at(3, 18)), as_of: iso(at(3)) },
    { state: "paused" },
    "paused",
    "Paused (last checked 3 Nov 2026)",
  ],
  [
    "met, not paused: a paused watch whose finding stands",
    { state: "paused" as never, next_run: null, notified_execution: finding, ...failing },
    { state: "met", since: iso(at(2)), failure: null },
    { state: "met" },
    "met · 2 Nov 2026",
    "Yes, found 2 Nov 2026",
  ],
  [
    "held on a paused watch: the owner still has it to decide",
    { state: "paused" as never, next_run: null, held_reason: "1 independent source, 2 required", finding_at: at(3) },
    { state: "held" },
    { state: "paused" },
    "found, not sent",
    "Found, not sent yet: held back by the watch's bounds",
  ],
  [
    "paused: completed without a standing finding, even while failing",
    { state: "completed" as never, state_changed_at: at(3, 18), next_run: null, ...failing },
    { state: "paused", failure: null, retry_at: null },
    { state: "paused" },
    "paused",
    "Paused (last checked 3 Nov 2026)",
  ],
  [
    "resolved: completed with its finding standing",
    { state: "completed" as never, next_run: null, notified_execution: finding },
    { state: "resolved", since: iso(at(2)) },
    { state: "resolved", since: iso(at(2)) },
    "resolved · 2 Nov 2026",
    "Yes, found 2 Nov 2026",
  ],
  [
    "cant_check: three failures in a row (ours), over a standing finding",
    { ...failing, notified_execution: finding },
    {
      state: "cant_check",
      since: iso(at(3, 12)),
      failure: "ours",
      retry_at: iso(at(4)),
      reason: "The AI model provider is failing.",
    },
    { state: "cant_check", failure: "ours", retry_at: iso(at(4)), reason: null },
    "can't check",
    "Can't check right now; retrying",
  ],
  [
    "cant_check: every check so far failed (yours: a site that cannot be read)",
    {
      latest_answer_at: null,
      public_answer_at: null,
      failure_streak: 1,
      failing_since: at(3),
      executions: [{ error_message: "fetch failed: intranet.local resolves to a non-public address (10.0.0.4)" }],
    },
    { state: "cant_check", failure: "yours", reason: RUN_FAILURES.blocked_site.reason, as_of: null },
    { state: "cant_check", failure: "yours", reason: null },
    "can't check",
    "Can't check: the watch needs a change",
  ],
  [
    "not_yet, not cant_check: one failure after an answer is retried quietly",
    { failure_streak: 1, failing_since: at(3, 12), executions: failing.executions },
    { state: "not_yet", failure: null },
    { state: "not_yet" },
    "not yet",
    "Not yet (checked 3 Nov 2026)",
  ],
  [
    "first_check: running",
    { latest_answer_at: null, public_answer_at: null, open_run: { status: "running", started_at: at(3) } },
    { state: "first_check", since: iso(at(3)), running: true, as_of: null },
    { state: "first_check", running: true },
    "first check",
    "First check under way",
  ],
  [
    "first_check: pending",
    { latest_answer_at: null, public_answer_at: null },
    { state: "first_check", since: null, running: false },
    { state: "first_check", running: false },
    "first check",
    "First check pending",
  ],
];

describe("the verdict", () => {
  it.each(CASES)("%s", (_name, over, owner, anyone, label, sentence) => {
    const row = { ...base, ...over };
    const mine = verdictFor(row, "owner");
    const theirs = verdictFor(row, "public");
    expect(mine).toMatchObject(owner);
    expect(theirs).toMatchObject(anyone);
    expect(theirs.state).not.toBe("held");
    // The words: the owner's badge and sentence (anyone else's say the same unless the owner's is held).
    expect(verdictLabel(mine)).toBe(label);
    expect(verdictSentence(mine)).toBe(sentence);
    expect(verdictBadge(theirs)).toContain(`aria-label="watch: ${verdictLabel(theirs).replace("'", "&apos;")}"`);
  });

  it("is running in any state while a check is under way", () => {
    const open = { status: "running", started_at: at(3, 10) };
    expect(verdictFor({ ...base, open_run: open, notified_execution: finding }, "owner")).toMatchObject({
      state: "met",
      running: true,
    });
    expect(verdictFor({ ...base, open_run: open }, "public")).toMatchObject({ state: "not_yet", running: true });
  });
});

describe("a run's failure", () => {
  it.each([
    ["No model configured: set GOOGLE_GENERATIVE_AI_API_KEY, …", "not_configured"],
    ["AGENT_MODEL=openai:gpt-5 needs OPENAI_API_KEY (or AGENT_API_KEY)", "not_configured"],
    ["No web search configured: set SEARXNG_URL (or TAVILY_API_KEY / BRAVE_SEARCH_API_KEY)", "not_configured"],
    [
      "Model provider error from google:x: HTTP 429 Too Many (rate limited or out of quota; the run is retried later)",
      "quota",
    ],
    [
      "Model provider error from google:x: HTTP 401 bad key (check the API key in GOOGLE_GENERATIVE_AI_API_KEY)",
      "model",
    ],
    [
      "Model provider error from openai:x: fetch failed (the provider cannot be reached; the run is retried later)",
      "model",
    ],
    ["The agent run timed out after 120 s", "timeout"],
    ["search provider answered HTTP 502", "search"],
    ["The model returned an invalid decision: answer: Required", "model_answer"],
    ["superseded: stuck", "interrupted"],
    ["intranet.local resolves to a non-public address (10.0.0.4)", "blocked_site"],
    ["The condition could not be evaluated: it names no event", "unreadable_condition"],
    ["something else", "other"],
    [null, "other"],
  ] as const)("%s → %s", (error, code) => {
    expect(runFailure(error)).toBe(code);
  });

  it("is ours unless the owner has something to change", () => {
    const yours = Object.entries(RUN_FAILURES)
      .filter(([, f]) => f.failure === "yours")
      .map(([code]) => code);
    expect(yours).toEqual(["blocked_site", "unreadable_condition"]);
  });
});

describe("a send's failure", () => {
  it.each([
    ["sent", null, null],
    ["failed", INTERRUPTED, null],
    ["failed", 'HTTP 400: {"ok":false}', "refused"],
    ["failed", "HTTP 404", "refused"],
    ["failed", "HTTP 301: redirects are not followed", "refused"],
    ["failed", "refused: 10.0.0.1 is not a public address", "refused"],
    ["failed", "webhook url must use https", "refused"],
    ["skipped", "address not verified: waiting for a@example.com to confirm", "refused"],
    ["failed", "HTTP 500: oops", "unreachable"],
    ["failed", "HTTP 429", "unreachable"],
    ["failed", "HTTP 408", "unreachable"],
    ["failed", "connect ECONNREFUSED 127.0.0.1:9", "unreachable"],
    ["failed", "getaddrinfo ENOTFOUND hooks.example.com", "unreachable"],
    ["failed", "This operation was aborted", "unreachable"],
    ["failed", "Resend: Unable to fetch data. The request could not be resolved.", "unreachable"],
    ["failed", "Resend: API key is invalid", "internal"],
    ["failed", "Email is not configured on this server: set RESEND_API_KEY", "internal"],
    ["skipped", "daily email limit reached (50 per user per day)", "internal"],
    ["skipped", "hourly email limit reached for a@example.com (5 per hour)", "internal"],
  ] as const)("%s %s → %s", (status, error, failure) => {
    expect(deliveryFailure(status, error)).toBe(failure);
  });
});

describe("the latest answer's first sentence", () => {
  it.each([
    ["Python 3.15.0 was released on 1 October. It brings free threading.", "Python 3.15.0 was released on 1 October."],
    ["## Verdict\n\n**Yes**: see [the notes](https://example.com/n). More.", "Yes: see the notes."],
    ["- No date yet, e.g. no beta. The page is unchanged.", "No date yet, e.g. no beta."],
    ["Announced by J. Smith today! Details follow.", "Announced by J. Smith today!"],
    ["No. The beta has not been announced.", "No. The beta has not been announced."],
    ["# Only a heading", "Only a heading"],
    ["   \n\n", null],
  ])("%j → %j", (answer, sentence) => {
    expect(firstSentence(answer)).toBe(sentence);
  });

  it("is at most 200 characters, cut on a word", () => {
    const long = `${"The release candidate ".repeat(15)}is out.`;
    const cut = firstSentence(long)!;
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut).toMatch(/candidate…$/);
    expect(firstSentence("x".repeat(300))).toBe(`${"x".repeat(199)}…`);
  });
});
