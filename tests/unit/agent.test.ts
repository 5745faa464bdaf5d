/** The agent's decision logic with the AI SDK's mock model: no network, no provider. */
import { APICallError } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { AgentError, runAgent, type AgentInput } from "@/server/agent";
import { clampNextRun } from "@/server/agent/decision";
import { userPrompt } from "@/server/agent/prompt";
import { chooseModel, ModelConfigError } from "@/server/agent/config";
import { withAgentSlot } from "@/server/agent/slots";

const now = new Date("2026-11-23T10:00:00.000Z");
const HOUR = 3_600_000;
const input = (over: Partial<AgentInput["watch"]> = {}, notified: AgentInput["notified"] = null): AgentInput => ({
  watch: {
    id: "w1",
    user_id: "u1",
    name: "PG19",
    search_query: "Postgres 19 beta",
    condition_description: "a beta is released",
    min_sources: 1,
    min_interval_minutes: null,
    max_interval_minutes: null,
    ...over,
  },
  lastKnownState: null,
  notified,
  recent: [],
  now,
});

const usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
};
function reply(text: string) {
  return {
    content: [{ type: "text" as const, text }],
    finishReason: { unified: "stop" as const, raw: "stop" },
    usage,
    warnings: [],
  };
}
function decision(over: Record<string, unknown> = {}) {
  return (
    "Research done.\n```json\n" +
    JSON.stringify({
      condition_met: true,
      answer: "PostgreSQL 19 Beta 1 was released.",
      evidence: "postgresql.org news",
      confidence: 0.9,
      sources: [{ url: "https://www.postgresql.org/about/news/pg19-beta1/", title: "PG 19 Beta 1" }],
      notify: true,
      notification: { title: "PostgreSQL 19 Beta 1 released", markdown: "Beta 1 is out." },
      finding_key: "pg19-beta1",
      next_run: new Date(now.getTime() + 24 * HOUR).toISOString(),
      next_run_reason: "beta 2 expected in weeks",
      done: false,
      state: { latest: "beta1" },
      ...over,
    }) +
    "\n```"
  );
}
const model = (...texts: string[]) => new MockLanguageModelV3({ doGenerate: texts.map(reply) });

describe("agent decision", () => {
  it("reports a met condition with the finding it wants told, under its key", async () => {
    const run = await runAgent(input(), { model: model(decision()) });
    expect(run.decision).toMatchObject({
      condition_met: true,
      finding: { key: "pg19-beta1", notification: { title: "PostgreSQL 19 Beta 1 released" } },
      retracts_previous: false,
    });
    expect(run.decision.last_known_state).toEqual({ latest: "beta1" });
    expect(run.usage).toEqual({ input_tokens: 100, output_tokens: 20 });
    expect(run.model).toBe("mock-provider:mock-model-id");
    expect(run.decision.sources).toEqual([
      { url: "https://www.postgresql.org/about/news/pg19-beta1/", title: "PG 19 Beta 1" },
    ]);
  });

  it("has no finding when the condition is not met; a met one the model does not want told is a confirmation", async () => {
    const unmet = await runAgent(input(), { model: model(decision({ condition_met: false, notify: true })) });
    expect(unmet.decision.finding).toBeNull();
    const quiet = await runAgent(input(), { model: model(decision({ notify: false })) });
    expect(quiet.decision.finding).toMatchObject({ key: "pg19-beta1", notify: false });
  });

  it("passes on a retraction and drops the state key older versions kept", async () => {
    const run = await runAgent(input(), {
      model: model(
        decision({
          condition_met: false,
          notify: false,
          retracts_previous: true,
          state: { _last_notified_finding: "x", a: 1 },
        }),
      ),
    });
    expect(run.decision).toMatchObject({ retracts_previous: true, finding: null, last_known_state: { a: 1 } });
  });

  it("tells the model the last notified finding, the cadence bounds, and to corroborate when the watch needs it", () => {
    const prompt = userPrompt(
      input(
        { min_sources: 2, min_interval_minutes: 60, max_interval_minutes: 7 * 1440 },
        { key: "pg19-beta1", title: "Beta 1 released", at: now.toISOString() },
      ),
    );
    expect(prompt).toContain("key: pg19-beta1");
    expect(prompt).toContain("at least 2 independent outlets");
    expect(prompt).toContain("no sooner than 1 hour(s) and no later than 7 day(s)");
    expect(userPrompt(input())).not.toContain("independent outlets");
  });

  it("clamps next_run to [now + 5 min, now + 30 days], a day when missing", async () => {
    const soon = await runAgent(input(), { model: model(decision({ next_run: now.toISOString() })) });
    expect(soon.decision.next_run.getTime()).toBe(now.getTime() + 5 * 60_000);
    const late = await runAgent(input(), { model: model(decision({ next_run: "2030-01-01T00:00:00Z" })) });
    expect(late.decision.next_run.getTime()).toBe(now.getTime() + 30 * 24 * HOUR);
    expect(clampNextRun(null, now).getTime()).toBe(now.getTime() + 24 * HOUR);
    expect(clampNextRun("not a date", now).getTime()).toBe(now.getTime() + 24 * HOUR);
  });

  it("clamps next_run into the watch's own cadence bounds, never below the service's floor", async () => {
    const cadence = { min_interval_minutes: 60, max_interval_minutes: 7 * 1440 };
    expect(clampNextRun(now.toISOString(), now, cadence).getTime()).toBe(now.getTime() + HOUR);
    expect(clampNextRun("2030-01-01T00:00:00Z", now, cadence).getTime()).toBe(now.getTime() + 7 * 24 * HOUR);
    expect(clampNextRun(null, now, { min_interval_minutes: 2 * 1440, max_interval_minutes: null }).getTime()).toBe(
      now.getTime() + 48 * HOUR,
    );
    expect(clampNextRun(now.toISOString(), now, { min_interval_minutes: 1, max_interval_minutes: 1 }).getTime()).toBe(
      now.getTime() + 5 * 60_000,
    );
    const bounded = await runAgent(input(cadence), { model: model(decision({ next_run: now.toISOString() })) });
    expect(bounded.decision.next_run.getTime()).toBe(now.getTime() + HOUR);
  });

  it("lists each page once, without OpenAI's tracking parameter, titled by its page title or else its site", async () => {
    const answer = decision({
      sources: [
        { url: "https://www.example.com/a?utm_source=openai", title: "https://www.example.com/a?utm_source=openai" },
      ],
    });
    const withSources = new MockLanguageModelV3({
      doGenerate: {
        ...reply(answer),
        content: [
          { type: "text" as const, text: answer },
          {
            type: "source" as const,
            sourceType: "url" as const,
            id: "s1",
            url: "https://www.example.com/a",
            title: "The A page",
          },
          { type: "source" as const, sourceType: "url" as const, id: "s2", url: "https://other.example/b" },
        ],
      },
    });
    const run = await runAgent(input(), { model: withSources });
    expect(run.decision.sources).toEqual([
      { url: "https://www.example.com/a", title: "The A page" },
      { url: "https://other.example/b", title: "other.example" },
    ]);
  });

  it("passes done through", async () => {
    const run = await runAgent(input(), { model: model(decision({ done: true })) });
    expect(run.decision.done).toBe(true);
  });

  it("repairs malformed output once, then fails clearly", async () => {
    const repaired = await runAgent(input(), { model: model("I think it's out!", decision()) });
    expect(repaired.decision.condition_met).toBe(true);
    expect(repaired.usage.input_tokens).toBe(200);
    await expect(runAgent(input(), { model: model("no json", '{"condition_met":"maybe"}') })).rejects.toThrow(
      /invalid decision: .*condition_met/,
    );
  });

  it("turns a provider error into an actionable AgentError", async () => {
    const failing = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new APICallError({ message: "Unauthorized", url: "https://x", requestBodyValues: {}, statusCode: 401 });
      },
    });
    const err = await runAgent(input(), { model: failing }).catch((e) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect(err.message).toMatch(/HTTP 401.*check the API key/);
  });

  it("stops at the time limit", async () => {
    const hanging = new MockLanguageModelV3({
      doGenerate: ({ abortSignal }) =>
        new Promise((_, reject) => abortSignal?.addEventListener("abort", () => reject(abortSignal.reason))),
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("aborted by test")), 50);
    await expect(runAgent(input(), { model: hanging, signal: controller.signal })).rejects.toBeInstanceOf(AgentError);
  });
});

describe("model selection", () => {
  it("takes AGENT_MODEL, else the first provider key, else says what to set", () => {
    expect(chooseModel({ GOOGLE_GENERATIVE_AI_API_KEY: "g" })).toMatchObject({
      provider: "google",
      modelId: "gemini-2.5-flash",
    });
    expect(chooseModel({ OPENAI_API_KEY: "o", ANTHROPIC_API_KEY: "a" })).toMatchObject({ provider: "openai" });
    expect(chooseModel({ AGENT_MODEL: "anthropic:claude-x", ANTHROPIC_API_KEY: "a" })).toMatchObject({
      provider: "anthropic",
      modelId: "claude-x",
    });
    expect(
      chooseModel({ AGENT_MODEL: "openai-compatible:llama3", AGENT_BASE_URL: "http://localhost:11434/v1" }),
    ).toMatchObject({
      provider: "openai-compatible",
      baseURL: "http://localhost:11434/v1",
    });
    expect(() => chooseModel({})).toThrow(ModelConfigError);
    expect(() => chooseModel({})).toThrow(/GOOGLE_GENERATIVE_AI_API_KEY/);
    expect(() => chooseModel({ AGENT_MODEL: "openai-compatible:x" })).toThrow(/AGENT_BASE_URL/);
    expect(() => chooseModel({ AGENT_MODEL: "foo:bar" })).toThrow(/not one of/);
  });

  it("fails a run with no model configured, naming the variables", async () => {
    const saved = { ...process.env };
    for (const k of [
      "AGENT_MODEL",
      "GOOGLE_GENERATIVE_AI_API_KEY",
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "PERPLEXITY_API_KEY",
    ])
      delete process.env[k];
    await expect(runAgent(input())).rejects.toThrow(/No model configured: set GOOGLE_GENERATIVE_AI_API_KEY/);
    process.env = saved;
  });
});

describe("agent slots", () => {
  it("shares the slots fairly between users", async () => {
    const order: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    // AGENT_CONCURRENCY defaults to 8: fill the slots with one user's runs, then queue more from two users.
    const blockers = Array.from({ length: 8 }, () => withAgentSlot("heavy", () => gate));
    const queued = [
      ...Array.from({ length: 3 }, (_, i) => withAgentSlot("heavy", async () => void order.push(`heavy${i}`))),
      withAgentSlot("light", async () => void order.push("light")),
    ];
    open();
    await Promise.all([...blockers, ...queued]);
    expect(order.indexOf("light")).toBeLessThan(2);
  });
});
