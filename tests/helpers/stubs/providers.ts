/**
 * Stubs of the model providers' real HTTP APIs, replaying recorded answers (./recorded/*.json, each saying where it
 * comes from): Gemini generateContent with Google Search grounding, the OpenAI Responses API with web search, the
 * Anthropic Messages API with its web search tool, Perplexity's Sonar chat completions. The agent calls each with
 * generateText, i.e. without streaming. The recorded answer is replayed whole, its text replaced by the decision
 * JSON for the watch's search query; grounding data (sources, citations, search results) stays as recorded.
 *
 * Point the provider at a stub with its key variable and AGENT_BASE_URL (`stub.env`). A request with another key
 * gets the provider's real bad-key answer; `stub.fail(kind)` makes every call answer that recorded error.
 * Gemini's grounding links are served from the stub's own address (`/grounding-api-redirect/<token>`, answering
 * 302 to the recorded page), so the agent's one-hop resolution runs against it (AGENT_FETCH_ALLOW_PRIVATE=1).
 */
import anthropic from "./recorded/anthropic.json";
import google from "./recorded/google.json";
import openai from "./recorded/openai.json";
import perplexity from "./recorded/perplexity.json";
import { startStub, type StubReply, type StubRequest } from "./http";
import { decisionFor, type StubDecision } from "./model";

export type RecordedProvider = "google" | "openai" | "anthropic" | "perplexity";
export type ProviderError = "bad_key" | "quota" | "server_error" | "overloaded";
type Recorded = {
  response: unknown;
  errors: Record<ProviderError, { status: number; body?: unknown; text?: string; headers?: Record<string, string> }>;
};

const KEY = "test-provider-key";
const REDIRECTOR = "https://vertexaisearch.cloud.google.com";

const api: Record<
  RecordedProvider,
  {
    recorded: Recorded;
    keyVariable: string;
    basePath: string;
    path: RegExp;
    key: (req: StubRequest) => string | undefined;
    /** The recorded answer with `text` as the model's final text. */
    answer: (text: string) => unknown;
  }
> = {
  google: {
    recorded: google as Recorded,
    keyVariable: "GOOGLE_GENERATIVE_AI_API_KEY",
    basePath: "/v1beta",
    path: /^\/v1beta\/models\/[^/:]+:generateContent$/,
    key: (req) => req.headers["x-goog-api-key"] as string | undefined,
    answer: (text) => {
      const r = structuredClone(google.response);
      r.candidates[0]!.content.parts = [{ text }];
      return r;
    },
  },
  openai: {
    recorded: openai as Recorded,
    keyVariable: "OPENAI_API_KEY",
    basePath: "/v1",
    path: /^\/v1\/responses$/,
    key: (req) => bearer(req),
    answer: (text) => {
      const r = structuredClone(openai.response);
      const message = r.output.findLast((o) => o.type === "message")!;
      message.content![0]!.text = text;
      return r;
    },
  },
  anthropic: {
    recorded: anthropic as Recorded,
    keyVariable: "ANTHROPIC_API_KEY",
    basePath: "/v1",
    path: /^\/v1\/messages$/,
    key: (req) => req.headers["x-api-key"] as string | undefined,
    answer: (text) => {
      const r = structuredClone(anthropic.response) as { content: { type: string; text?: string }[] };
      r.content.findLast((c) => c.type === "text")!.text = text;
      return r;
    },
  },
  perplexity: {
    recorded: perplexity as Recorded,
    keyVariable: "PERPLEXITY_API_KEY",
    basePath: "",
    path: /^\/chat\/completions$/,
    key: (req) => bearer(req),
    answer: (text) => {
      const r = structuredClone(perplexity.response);
      r.choices[0]!.message.content = text;
      return r;
    },
  },
};

function bearer(req: StubRequest) {
  return /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1];
}

function errorReply(recorded: Recorded, kind: ProviderError): StubReply {
  const e = recorded.errors[kind];
  return { status: e.status, headers: e.headers, ...(e.text !== undefined ? { text: e.text } : { json: e.body }) };
}

/** What the recorded grounding data becomes in grounding_sources (after the agent's normalisation). */
export const recordedGrounding: Record<RecordedProvider, { url: string; title: string }[]> = {
  google: google.response.candidates[0]!.groundingMetadata.groundingChunks.map((c) => {
    const page = (google.redirects as Record<string, string>)[c.web.uri.split("/").pop()!]!;
    return { url: page, title: new URL(page).hostname.replace(/^www\./, "") };
  }),
  openai: openai.response.output
    .flatMap((o) => (o.type === "message" ? o.content!.flatMap((c) => c.annotations) : []))
    .map((a) => ({ url: a.url.replace("?utm_source=openai", ""), title: a.title }))
    .filter((a, i, all) => all.findIndex((b) => b.url === a.url) === i),
  anthropic: anthropic.response.content
    .flatMap((c) => (c.type === "web_search_tool_result" ? (c.content as { url: string; title: string }[]) : []))
    .map((r) => ({ url: r.url, title: r.title })),
  perplexity: perplexity.response.citations.map((url) => ({
    url,
    title:
      perplexity.response.search_results.find((s) => s.url === url)?.title ??
      new URL(url).hostname.replace(/^www\./, ""),
  })),
};

export async function startProviderStub(
  provider: RecordedProvider,
  decide: (query: string) => StubDecision = () => decisionFor(),
) {
  const p = api[provider];
  let failing: ProviderError | null = null;
  let calls = 0;
  const stub = await startStub((req) => {
    const redirect = /^\/grounding-api-redirect\/(.+)$/.exec(req.url);
    if (redirect && provider === "google") {
      const page = (google.redirects as Record<string, string>)[redirect[1]!];
      return page ? { status: 302, headers: { location: page }, text: "" } : { status: 404, text: "" };
    }
    if (req.method !== "POST" || !p.path.test(req.url))
      return { status: 404, json: { error: { message: `no route ${req.method} ${req.url}` } } };
    calls++;
    if ((JSON.parse(req.body) as { stream?: boolean }).stream === true)
      return {
        status: 400,
        json: {
          error: { message: "this stub replays non-streaming answers, as the agent asks for them (generateText)" },
        },
      };
    if (p.key(req) !== KEY) return errorReply(p.recorded, "bad_key");
    if (failing) return errorReply(p.recorded, failing);
    const query = /search query: ([^\\]+)\\n/.exec(req.body)?.[1] ?? "";
    const text = "```json\n" + JSON.stringify(decide(query)) + "\n```";
    const body = JSON.stringify(p.answer(text)).replaceAll(REDIRECTOR, url);
    return { json: JSON.parse(body) };
  });
  const url = stub.url;
  return {
    ...stub,
    calls: () => calls,
    /** Every call answers this recorded error until `fail(null)`. */
    fail: (kind: ProviderError | null) => void (failing = kind),
    /** Server variables for the default path a user takes: the provider's key, its base URL pointed here. */
    env: (key = KEY) => ({
      [p.keyVariable]: key,
      AGENT_BASE_URL: `${url}${p.basePath}`,
      AGENT_FETCH_ALLOW_PRIVATE: "1",
    }),
    /** The request bodies the provider received. */
    bodies: () =>
      stub.requests.filter((r) => r.method === "POST").map((r) => JSON.parse(r.body) as Record<string, unknown>),
  };
}
