/**
 * An OpenAI-compatible chat-completions stub (AGENT_MODEL=openai-compatible:stub, AGENT_BASE_URL=<url>/v1):
 * the first call asks for the `web_search` tool, the next one answers with the decision JSON that `decide`
 * returns for the watch's search query (`beforeAnswer` may hold that answer back, to look at a run under way).
 */
import { startStub } from "./http";

export type StubDecision = Record<string, unknown>;

export function decisionFor(over: StubDecision = {}): StubDecision {
  return {
    condition_met: true,
    answer: "PostgreSQL 19 Beta 1 was released today.",
    evidence: "The PostgreSQL news page announces Beta 1.",
    confidence: 0.9,
    sources: [{ url: "https://www.postgresql.org/about/news/pg19-beta1/", title: "PostgreSQL 19 Beta 1 Released" }],
    notify: true,
    notification: { title: "PostgreSQL 19 Beta 1 is out", markdown: "Beta 1 was released today." },
    finding_key: "pg19-beta1",
    next_run: new Date(Date.now() + 6 * 3_600_000).toISOString(),
    next_run_reason: "Beta 2 is weeks away",
    done: false,
    state: { latest: "beta1" },
    ...over,
  };
}

/**
 * What an attacker can plant through a page the agent reads: a link whose URL closes its href and adds an event
 * handler, raw HTML, a javascript: link, markup in the title and a javascript: source.
 */
export const HOSTILE_ANSWER =
  '[notes](https://example.com/"onfocus="alert(1)"autofocus="") and **bold** <img src=x onerror="alert(2)"> [js](javascript:alert(3))';

export function hostileDecision(): StubDecision {
  return decisionFor({
    answer: HOSTILE_ANSWER,
    notification: { title: '<script>alert(4)</script>"]]>]]>', markdown: HOSTILE_ANSWER },
    sources: [
      { url: "javascript:alert(5)", title: "evil" },
      { url: "https://example.org/source", title: '"><img src=x onerror=alert(6)>' },
    ],
  });
}

/**
 * `decide` answers per watch (by its search query); it may return `{ providerError: status }` to make the provider
 * fail that call with an OpenAI-style error body.
 */
export async function startModelStub(
  decide: (query: string) => StubDecision = () => decisionFor(),
  opts: { answerDelayMs?: number; beforeAnswer?: (query: string) => Promise<void> } = {},
) {
  let calls = 0;
  const stub = await startStub(async (req) => {
    if (!req.url.endsWith("/chat/completions")) return { status: 404, json: { error: { message: "not found" } } };
    calls++;
    const body = JSON.parse(req.body) as { messages: { role: string; content: unknown }[] };
    const prompt = JSON.stringify(body.messages);
    const query = /search query: ([^\\]+)\\n/.exec(prompt)?.[1] ?? "";
    const usage = { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 };
    const base = {
      id: `chatcmpl-${calls}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: "stub",
      usage,
    };
    if (!body.messages.some((m) => m.role === "tool")) {
      return {
        json: {
          ...base,
          choices: [
            {
              index: 0,
              finish_reason: "tool_calls",
              message: {
                role: "assistant",
                content: null,
                tool_calls: [
                  {
                    id: `call_${calls}`,
                    type: "function",
                    function: { name: "web_search", arguments: JSON.stringify({ query }) },
                  },
                ],
              },
            },
          ],
        },
      };
    }
    await opts.beforeAnswer?.(query);
    const decided = decide(query);
    if (typeof decided.providerError === "number")
      return {
        status: decided.providerError,
        json: { error: { message: "The stub provider failed on purpose", type: "server_error" } },
      };
    const text = "```json\n" + JSON.stringify(decided) + "\n```";
    return {
      delayMs: opts.answerDelayMs,
      json: { ...base, choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: text } }] },
    };
  });
  return { ...stub, calls: () => calls };
}

/** A SearXNG JSON API stub. */
export function startSearxStub(
  results = [
    {
      url: "https://www.postgresql.org/about/news/pg19-beta1/",
      title: "PostgreSQL 19 Beta 1 Released",
      content: "Beta 1 is available.",
    },
  ],
) {
  return startStub((req) =>
    req.url.startsWith("/search") ? { json: { query: "", results } } : { status: 404, text: "" },
  );
}

/** Server variables that point the agent and email delivery at the local stubs (NOAUTH test user). */
export function stubbedServiceEnv(stubs: { model: { url: string }; searx: { url: string }; resend: { url: string } }) {
  return {
    SERVICE_NOAUTH: "1",
    AGENT_MODEL: "openai-compatible:stub",
    AGENT_BASE_URL: `${stubs.model.url}/v1`,
    SEARXNG_URL: stubs.searx.url,
    RESEND_API_KEY: "re_test",
    RESEND_BASE_URL: stubs.resend.url,
    WEBHOOK_ALLOW_PRIVATE: "1",
  };
}
