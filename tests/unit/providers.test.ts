/**
 * Every model provider through the real AI SDK against a stub of its HTTP API replaying recorded answers
 * (tests/helpers/stubs/providers.ts). Through the run's own steps (server/runs/steps.ts: begin, evaluate, record,
 * deliver; the built server runs the same steps in tests/http/providers.test.ts for Gemini): the request asks for the
 * provider's native search, the decision is parsed, the recorded grounding becomes the finding's sources (Gemini's
 * redirector links resolved to the real pages), usage is counted, one webhook goes out. The providers' real error
 * answers become errors the owner can act on. On PostgreSQL in the Postgres tier (DATABASE_URL), else embedded.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

vi.hoisted(() => {
  // Read once when server/env.ts loads: the grounding redirects and the webhook receiver are on loopback.
  process.env.AGENT_FETCH_ALLOW_PRIVATE = "1";
  process.env.WEBHOOK_ALLOW_PRIVATE = "1";
});

import { runAgent, type AgentInput } from "@/server/agent";
import { DEFAULT_MODEL } from "@/server/agent/config";
import { isGroundingRedirect, resolveGroundingRedirects } from "@/server/agent/sources";
import { db, type Database } from "@/server/db";
import { env } from "@/server/env";
import { deliverWebhook } from "@/server/notify";
import { beginRun, evaluateRun, recordOutcome, type RunPlan } from "@/server/runs/steps";
import { openTestDatabase } from "../helpers/database";
import { startStub } from "../helpers/stubs/http";
import { decisionFor } from "../helpers/stubs/model";
import {
  recordedGrounding,
  startProviderStub,
  type ProviderError,
  type RecordedProvider,
} from "../helpers/stubs/providers";
import { startWebhookReceiver } from "../helpers/stubs/receivers";

const PROVIDERS: RecordedProvider[] = ["google", "openai", "anthropic", "perplexity"];
const MODEL_VARIABLES = [
  "AGENT_MODEL",
  "AGENT_API_KEY",
  "AGENT_BASE_URL",
  "GOOGLE_GENERATIVE_AI_API_KEY",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "PERPLEXITY_API_KEY",
];
const stubs: { close: () => Promise<void> }[] = [];
let database: Database;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

const input: AgentInput = {
  watch: {
    id: "w1",
    user_id: "u1",
    name: "Euro 2024",
    search_query: "Euro 2024 winner",
    condition_description: "the winner is known",
    min_sources: 1,
    min_interval_minutes: null,
    max_interval_minutes: null,
  },
  lastKnownState: null,
  notified: null,
  recent: [],
  now: new Date(),
};

/** Sets exactly these model variables; returns what puts the environment back. */
function setModelEnv(vars: Record<string, string>) {
  const saved = { ...env };
  for (const k of MODEL_VARIABLES) delete (env as Record<string, unknown>)[k];
  Object.assign(env, vars);
  return () => void Object.assign(env, saved);
}

async function stub(provider: RecordedProvider) {
  const s = await startProviderStub(provider, () =>
    decisionFor({ answer: "Spain won Euro 2024.", sources: [], finding_key: "euro-2024-winner" }),
  );
  stubs.push(s);
  return s;
}

beforeAll(async () => {
  database = await openTestDatabase();
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await Promise.all([receiver, ...stubs].map((s) => s?.close()));
  await database?.close();
});

describe("each provider's recorded answer, through the run's steps", () => {
  const usage: Record<RecordedProvider, { input_tokens: number; output_tokens: number }> = {
    google: { input_tokens: 17, output_tokens: 370 },
    openai: { input_tokens: 19681, output_tokens: 3773 },
    anthropic: { input_tokens: 27118, output_tokens: 600 },
    perplexity: { input_tokens: 10, output_tokens: 251 },
  };
  const searchRequested: Record<RecordedProvider, [string, unknown]> = {
    google: ["tools", [{ googleSearch: {} }]],
    openai: ["tools", [expect.objectContaining({ type: "web_search" })]],
    anthropic: ["tools", [expect.objectContaining({ type: "web_search_20250305", name: "web_search", max_uses: 5 })]],
    perplexity: ["model", "sonar-pro"], // Sonar searches on every call
  };

  it.each(PROVIDERS)(
    "%s: the met finding is recorded with the recorded grounding and usage, one webhook goes out",
    async (provider) => {
      const s = await stub(provider);
      const user = await db.user.create({
        data: { clerk_user_id: `user_${provider}`, email: `${provider}@example.com` },
      });
      const task = await db.task.create({
        data: {
          user_id: user.id,
          name: "Euro 2024",
          search_query: "Euro 2024 winner",
          condition_description: "the winner is known",
          state: "active",
          notifications: {
            create: { type: "webhook", config: { url: `${receiver.url}/${provider}`, method: "POST", headers: {} } },
          },
        },
      });
      const { id: executionId } = await db.execution.create({ data: { task_id: task.id, status: "pending" } });

      const plan = (await beginRun(task.id, { executionId })) as RunPlan;
      const restore = setModelEnv(s.env());
      const outcome = await evaluateRun(plan).finally(restore);
      expect(await recordOutcome(task.id, executionId, outcome)).toMatchObject({
        notices: [{ event: "task.condition_met" }],
      });
      expect(await deliverWebhook(executionId, { event: "task.condition_met" }, 1)).toMatchObject({ status: "sent" });

      const execution = await db.execution.findUniqueOrThrow({ where: { id: executionId } });
      expect(execution).toMatchObject({
        status: "success",
        condition_met: true,
        grounding_sources: recordedGrounding[provider],
      });
      expect(execution.result).toMatchObject({
        answer: "Spain won Euro 2024.",
        model: `${provider}:${DEFAULT_MODEL[provider]}`,
        usage: usage[provider],
      });
      const [field, value] = searchRequested[provider];
      expect(s.bodies()[0]![field]).toEqual(value);
      expect(s.calls()).toBe(1);

      const hooks = receiver.requests.filter((r) => r.url === `/${provider}`);
      expect(hooks).toHaveLength(1);
      expect(hooks[0]!.headers["webhook-signature"]).toMatch(/^v1,/);
      expect(JSON.parse(hooks[0]!.body)).toMatchObject({
        type: "task.condition_met",
        data: { execution: { id: executionId, grounding_sources: recordedGrounding[provider] } },
      });
    },
  );

  it("google: the grounding links are followed once on the stub's redirector and titled with the site", async () => {
    const s = await stub("google");
    const restore = setModelEnv(s.env());
    const run = await runAgent(input).finally(restore);
    expect(run.decision.sources).toEqual([
      { url: "https://www.aljazeera.com/sports/euro-2024-final", title: "aljazeera.com" },
      { url: "https://www.uefa.com/euro2024/news/spain-wins-euro-2024", title: "uefa.com" },
    ]);
    expect(s.requests.filter((r) => r.url.startsWith("/grounding-api-redirect/"))).toHaveLength(2);
  });
});

describe("each provider's recorded errors", () => {
  const status: Record<RecordedProvider, Record<ProviderError, number>> = {
    google: { bad_key: 400, quota: 429, server_error: 500, overloaded: 503 },
    openai: { bad_key: 401, quota: 429, server_error: 500, overloaded: 503 },
    anthropic: { bad_key: 401, quota: 429, server_error: 500, overloaded: 529 },
    perplexity: { bad_key: 401, quota: 429, server_error: 500, overloaded: 503 },
  };
  const said: Record<RecordedProvider, Record<ProviderError, RegExp>> = {
    google: {
      bad_key: /API key not valid/,
      quota: /You exceeded your current quota/,
      server_error: /An internal error has occurred/,
      overloaded: /The model is overloaded/,
    },
    openai: {
      bad_key: /Incorrect API key provided/,
      quota: /You exceeded your current quota/,
      server_error: /The server had an error/,
      overloaded: /currently overloaded/,
    },
    anthropic: {
      bad_key: /invalid x-api-key/,
      quota: /exceed your account's rate limit/,
      server_error: /Internal server error/,
      overloaded: /Overloaded/,
    },
    perplexity: {
      bad_key: /Unauthorized/,
      quota: /exceeded your rate limit/,
      server_error: /Internal server error/,
      overloaded: /temporarily unavailable/,
    },
  };
  const hint: Record<ProviderError, RegExp> = {
    bad_key: /\(check the API key in [A-Z_]+_API_KEY\)$/,
    quota: /\(rate limited or out of quota; the run is retried later\), after 3 attempts$/,
    server_error: /\(the provider is overloaded or failing; the run is retried later\), after 3 attempts$/,
    overloaded: /\(the provider is overloaded or failing; the run is retried later\), after 3 attempts$/,
  };

  // The SDK retries rate limits and overloads twice (2 s, then 4 s) before giving up: all cases run at once.
  it(
    "become an actionable error_message; overloads and rate limits are retried by the SDK first",
    { timeout: 60_000 },
    async () => {
      const cases = PROVIDERS.flatMap((provider) =>
        (Object.keys(status[provider]) as ProviderError[]).map((kind) => ({ provider, kind })),
      );
      const gone = await startStub(() => ({ text: "" }));
      await gone.close();
      const restore = setModelEnv({ GOOGLE_GENERATIVE_AI_API_KEY: "k", AGENT_BASE_URL: `${gone.url}/v1beta` });
      const unreachable = runAgent(input).catch((e: Error) => e);
      restore();
      const outcomes = await Promise.all(
        cases.map(async ({ provider, kind }) => {
          const s = await stub(provider);
          if (kind !== "bad_key") s.fail(kind);
          // The model is chosen before runAgent's first await: runs with different providers can overlap.
          const restore = setModelEnv(kind === "bad_key" ? s.env("a-wrong-key") : s.env());
          const running = runAgent(input);
          restore();
          const error = await running.catch((e: Error) => e);
          return { provider, kind, error, calls: s.calls() };
        }),
      );
      for (const { provider, kind, error, calls } of outcomes) {
        const message = (error as Error).message;
        expect(message, `${provider} ${kind}`).toMatch(
          new RegExp(
            `^Model provider error from ${provider}:${DEFAULT_MODEL[provider]}: HTTP ${status[provider][kind]} `,
          ),
        );
        expect(message, `${provider} ${kind}`).toMatch(said[provider][kind]);
        expect(message, `${provider} ${kind}`).toMatch(hint[kind]);
        expect(calls, `${provider} ${kind}`).toBe(kind === "bad_key" ? 1 : 3);
      }
      expect(((await unreachable) as Error).message).toMatch(
        /^Model provider error from google:gemini-2\.5-flash: Cannot connect to API: .*\(the provider cannot be reached; the run is retried later\), after 3 attempts$/,
      );
    },
  );
});

describe("grounding redirects", () => {
  it("keep the provider's link when it cannot be resolved, follow a relative Location, and touch nothing else", async () => {
    const redirector = await startStub((req) => {
      if (req.url === "/grounding-api-redirect/relative")
        return { status: 302, headers: { location: "/to/page?id=1" }, text: "" };
      if (req.url === "/grounding-api-redirect/titled")
        return { status: 301, headers: { location: "https://example.org/a" }, text: "" };
      return { status: 404, text: "expired" };
    });
    stubs.push(redirector);
    const base = `${redirector.url}/v1beta`;
    const sources = await resolveGroundingRedirects(
      [
        { url: `${redirector.url}/grounding-api-redirect/expired`, title: "expired.example" },
        { url: `${redirector.url}/grounding-api-redirect/relative`, title: "example.com" },
        { url: `${redirector.url}/grounding-api-redirect/titled`, title: "A page with a real title" },
        { url: "https://news.example.com/grounding-api-redirect/not-a-provider-link", title: "news" },
      ],
      base,
    );
    expect(sources).toEqual([
      { url: `${redirector.url}/grounding-api-redirect/expired`, title: "expired.example" },
      { url: `${redirector.url}/to/page?id=1`, title: "127.0.0.1" },
      { url: "https://example.org/a", title: "A page with a real title" },
      { url: "https://news.example.com/grounding-api-redirect/not-a-provider-link", title: "news" },
    ]);
    expect(redirector.requests.map((r) => r.url).sort()).toEqual(
      ["/grounding-api-redirect/expired", "/grounding-api-redirect/relative", "/grounding-api-redirect/titled"].sort(),
    );

    const gone = await startStub(() => ({ text: "" }));
    await gone.close();
    const unreachable = { url: `${gone.url}/grounding-api-redirect/x`, title: "unreachable.example" };
    expect(await resolveGroundingRedirects([unreachable], `${gone.url}/v1beta`)).toEqual([unreachable]);
  });

  it("are recognised on Google's redirector host, or on the provider's own host only when it is pointed elsewhere", () => {
    const link = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ";
    expect(isGroundingRedirect(link)).toBe(true);
    expect(isGroundingRedirect(link.replace("https:", "http:"))).toBe(false);
    expect(isGroundingRedirect("https://vertexaisearch.cloud.google.com/other/AUZIYQ")).toBe(false);
    expect(isGroundingRedirect("http://127.0.0.1:5000/grounding-api-redirect/x")).toBe(false);
    expect(isGroundingRedirect("http://127.0.0.1:5000/grounding-api-redirect/x", "http://127.0.0.1:5000/v1beta")).toBe(
      true,
    );
    expect(isGroundingRedirect("http://127.0.0.1:5001/grounding-api-redirect/x", "http://127.0.0.1:5000/v1beta")).toBe(
      false,
    );
    expect(isGroundingRedirect("not a url")).toBe(false);
  });
});
