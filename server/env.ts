/**
 * Configuration, validated once. Every variable the service reads is declared here; a bad value stops the
 * server at start with one line per problem.
 */
import { z } from "zod";
import { parseTrustProxy } from "./net/client-address.mjs";
import { serverProcesses } from "./processes.mjs";
import { BUCKETS } from "./ratelimit/buckets";
import { CHANNEL_SETTINGS } from "../channels/list";

const flag = z
  .enum(["1", "0", "true", "false", ""])
  .optional()
  .transform((v) => v === "1" || v === "true");
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v ? v : undefined));
const optionalUrl = z
  .url()
  .optional()
  .or(z.literal("").transform(() => undefined));
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/**
 * Every variable, grouped as `.env.example` and docs/configuration.md present them (both are generated from these
 * declarations by `npm run env:example`, and a test keeps them in step). A description says what the variable does;
 * its default is what the schema gives when the variable is unset.
 */
export const groups = {
  Server: {
    NODE_ENV: z.enum(["development", "production", "test"]).default("production").describe("Set by npm scripts."),
    PORT: positiveInt(8000).describe("Port the server listens on."),
    HOSTNAME: z.string().default("0.0.0.0").describe("Address the server listens on."),
    APP_URL: optionalUrl.describe(
      "Public base URL, used in emails, feeds and webhook payloads. Unset: http://localhost:$PORT.",
    ),
    SERVICE_NOAUTH: flag.describe(
      "1: requests without credentials from this machine act as the test user. Development only.",
    ),
    /** Read by the front (scripts/front.mjs), which validates it the same way before Next.js starts. */
    TRUST_PROXY: z
      .string()
      .optional()
      .transform((v, ctx) => {
        try {
          return parseTrustProxy(v);
        } catch (e) {
          ctx.addIssue({ code: "custom", message: (e as Error).message.replace(/^TRUST_PROXY: /, "") });
          return z.NEVER;
        }
      })
      .describe(
        "Proxies in front of the server: 1 (one hop), n (that many), or their addresses/CIDR ranges (10.0.0.0/8,fd00::/8). The client is the rightmost X-Forwarded-For entry no trusted proxy wrote. Never set it on a server clients reach directly.",
      ),
    /** Read by the front (scripts/front.mjs) as well. */
    REQUEST_HEADERS_TIMEOUT_MS: positiveInt(10_000).describe(
      "A request's headers must arrive within this many milliseconds, else 408 and the connection closed.",
    ),
    REQUEST_BODY_TIMEOUT_MS: positiveInt(30_000).describe(
      "A whole request (headers and body) must arrive within this many milliseconds, else 408 and the connection closed.",
    ),
    /** Read by scripts/start.mjs, which refuses a bad value the same way before anything starts. */
    SERVER_PROCESSES: z
      .string()
      .default("1")
      .describe(
        "Processes `npm start` serves from: a number, or auto (one per core). More than 1 needs DATABASE_URL; each process is a server like a replica (its own engine identity, database pool and AGENT_CONCURRENCY), and they share one port, the connection cap, rate limits and /metrics.",
      ),
    SHUTDOWN_GRACE_MS: positiveInt(30_000).describe(
      "On SIGTERM, how long running requests and agent runs get to finish, in milliseconds; unfinished runs resume at the next start.",
    ),
  },
  Operations: {
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info").describe("Least severe log level written."),
    LOG_FORMAT: z
      .enum(["json", "pretty"])
      .optional()
      .describe("json: one JSON object per line; pretty: readable lines. Unset: json under NODE_ENV=production."),
    METRICS_TOKEN: optionalString.describe(
      "Bearer token for GET /metrics. Unset: metrics are served only to clients on this machine.",
    ),
    OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl.describe(
      "OpenTelemetry collector (OTLP/HTTP, e.g. http://localhost:4318): traces of requests, runs, model calls and database time. Unset: no tracing.",
    ),
    OTEL_EXPORTER_OTLP_HEADERS: optionalString.describe(
      "Headers for the collector, as key=value pairs separated by commas (an API key of a hosted collector).",
    ),
    OTEL_SERVICE_NAME: z.string().default("watch").describe("Service name on the traces."),
    OTEL_METRICS_EXPORTER: optionalString.describe(
      "Unset: traces only (the product's metrics are Prometheus, GET /metrics). otlp: OpenTelemetry's own metrics (database operation durations) go to the collector too.",
    ),
  },
  Database: {
    DATABASE_URL: optionalString.describe(
      "PostgreSQL URL. Unset: an embedded PostgreSQL (PGlite) in DATA_DIR, same schema and migrations. The product's own reads and writes go as named prepared statements (each parsed and planned once per connection); through a pooler in transaction mode that does not keep them (PgBouncer before 1.21, or one without `max_prepared_statements`), add `pgbouncer=true` to the URL, as for Prisma, and they go unnamed (and a transaction's statements are no longer pipelined).",
    ),
    DATA_DIR: z
      .string()
      .default("./.data")
      .describe("Directory of the embedded database (one server process at a time)."),
    EMBEDDED_SHARED_BUFFERS: z
      .string()
      .regex(/^[1-9][0-9]{0,5}(MB|GB)$/, 'a size in MB or GB, such as "128MB"')
      .default("128MB")
      .describe(
        "Memory the embedded database keeps its pages in (PostgreSQL's shared_buffers), set up at every start: a smaller one starts faster.",
      ),
  },
  "Accounts (Clerk)": {
    CLERK_SECRET_KEY: optionalString.describe(
      "Clerk secret key. Without it the server runs; API keys and SERVICE_NOAUTH work; session tokens get 503.",
    ),
    CLERK_PUBLISHABLE_KEY: optionalString.describe(
      "Clerk publishable key (or NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY): turns on the sign-in pages.",
    ),
    NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY: optionalString.describe("Same as CLERK_PUBLISHABLE_KEY."),
    CLERK_JWT_KEY: optionalString
      .transform((v) => v?.replace(/\\n/g, "\n"))
      .describe("PEM public key to verify session tokens without network (newlines may be written \\n)."),
    CLERK_API_URL: optionalUrl.describe("Clerk Backend API base. Unset: Clerk's."),
    CLERK_AUTHORIZED_PARTIES: optionalString.describe(
      "Origins (comma-separated) a session token may be issued for. Unset: APP_URL's origin.",
    ),
    CLERK_WEBHOOK_SECRET: optionalString.describe(
      "Signing secret of Clerk's webhook to POST /api/webhooks/clerk (events user.updated, user.deleted).",
    ),
    SIGNUPS: z
      .enum(["open", "waitlist"])
      .default("open")
      .describe(
        "What the pages offer a visitor: open, a sign-up; waitlist, the waitlist form instead (home page and /sign-up). Who may create an account is Clerk's setting: set its sign-up mode to match.",
      ),
  },
  Email: {
    RESEND_API_KEY: optionalString.describe("Resend API key. Unset: email sends are recorded failed with the reason."),
    RESEND_BASE_URL: optionalUrl.describe("Resend API base (tests point it at a stub)."),
    EMAIL_FROM: z.string().default("Watch <watch@localhost>").describe("Sender of every email."),
    EMAILS_PER_USER_PER_DAY: positiveInt(100).describe("Emails one account may cause per day; past it: skipped."),
    EMAILS_PER_RECIPIENT_PER_HOUR: positiveInt(10).describe(
      "Alerts one mailbox may receive per hour; past it: skipped, and a finding's email is sent once the hour has room.",
    ),
    EMAIL_RECIPIENT_WINDOW_MS: positiveInt(3_600_000).describe(
      "The window of EMAILS_PER_RECIPIENT_PER_HOUR in milliseconds (an hour; shorter only in tests).",
    ),
  },
  Quotas: {
    MAX_ACTIVE_TASKS_PER_USER: positiveInt(50).describe("Active watches per account."),
    MAX_WATCHES_PER_ACCOUNT: positiveInt(2000).describe(
      "Watches per account, paused and completed included (creating, forking or applying past it: 403).",
    ),
    RUNS_PER_USER_PER_MONTH: positiveInt(3000).describe("Runs per account per calendar month (UTC)."),
  },
  "The agent": {
    AGENT_MODEL: optionalString.describe(
      "<provider>:<model> with provider google, openai, anthropic, perplexity or openai-compatible. Unset: the first provider whose key is set, with its default model.",
    ),
    AGENT_BASE_URL: optionalUrl.describe("Base URL for openai-compatible; base-URL override for the others."),
    AGENT_API_KEY: optionalString.describe("Key for openai-compatible; replaces the provider's key variable."),
    GOOGLE_GENERATIVE_AI_API_KEY: optionalString.describe("Gemini with Google Search grounding (the default)."),
    OPENAI_API_KEY: optionalString.describe("OpenAI Responses with web search."),
    ANTHROPIC_API_KEY: optionalString.describe("Anthropic with its web search tool."),
    PERPLEXITY_API_KEY: optionalString.describe("Perplexity Sonar."),
    AGENT_CONCURRENCY: positiveInt(8).describe("Agent runs at once per process (fair across users)."),
    AGENT_TIMEOUT_MS: positiveInt(120_000).describe("Time limit of one run, in milliseconds."),
    SEARCH_PROVIDER: z
      .enum(["searxng", "tavily", "brave"])
      .optional()
      .describe("Web search for models without native grounded search. Unset: the first configured below."),
    SEARXNG_URL: optionalUrl.describe("A SearXNG instance."),
    TAVILY_API_KEY: optionalString.describe("Tavily search."),
    BRAVE_SEARCH_API_KEY: optionalString.describe("Brave search."),
    AGENT_FETCH_ALLOW_PRIVATE: flag.describe(
      "1: the agent's own requests (pages it reads, grounding redirects) may reach loopback/private addresses. Development and tests.",
    ),
  },
  Scheduling: {
    INNGEST_EVENT_KEY: optionalString.describe(
      "With INNGEST_SIGNING_KEY: run the agent loop on Inngest Cloud (functions at /api/inngest) instead of the embedded engine.",
    ),
    INNGEST_SIGNING_KEY: optionalString.describe("Inngest signing key."),
    INNGEST_DEV: flag.describe("1: use a local Inngest dev server."),
    INNGEST_BASE_URL: optionalUrl.describe("A self-hosted Inngest server."),
    WATCH_EXECUTOR_ID: z
      .string()
      .min(1)
      .default("local")
      .describe("This process's identity in the embedded engine; give each replica its own stable value."),
    MIN_RUN_INTERVAL_MS: positiveInt(5 * 60_000).describe("Earliest next run the agent may pick, in milliseconds."),
    EXECUTION_STUCK_AFTER_MS: positiveInt(30 * 60_000).describe(
      "When an open run counts as stuck (Run now then replaces it), in milliseconds.",
    ),
    EXECUTION_RETENTION_DAYS: positiveInt(90).describe(
      "Days kept of runs that found nothing (findings and each watch's last run are kept at any age).",
    ),
    SEND_RETENTION_DAYS: positiveInt(365).describe("Days kept of send records."),
  },
  "Rate limits": {
    UPSTASH_REDIS_REST_URL: optionalUrl.describe(
      "With UPSTASH_REDIS_REST_TOKEN: a rate-limit store shared by replicas. Unset: in process.",
    ),
    UPSTASH_REDIS_REST_TOKEN: optionalString.describe("Token of that store."),
    RATE_LIMIT_USER_PER_MIN: positiveInt(BUCKETS["user-write"].limit).describe(
      "Authenticated writes per account per minute (every other limit but reads is fixed; each 429 in the OpenAPI document says its own).",
    ),
    RATE_LIMIT_READS_PER_MIN: positiveInt(BUCKETS["user-read"].limit).describe(
      "Authenticated reads per account per minute (the API's, the dashboard's and MCP's together).",
    ),
    RATE_LIMIT_WINDOW_MS: positiveInt(60_000).describe("Length of a rate-limit window (shorter only in tests)."),
  },
  "Webhooks and chat channels": {
    WEBHOOK_ALLOW_PRIVATE: flag.describe(
      "1: webhook and chat deliveries may go to loopback/private addresses and plain http. Development and tests.",
    ),
    /** The settings each channel declares in its folder (channels/<type>/), e.g. TELEGRAM_API_URL. */
    ...CHANNEL_SETTINGS,
  },
  Tests: {
    WATCH_CLOCK_OFFSET_MS: z.coerce
      .number()
      .int()
      .default(0)
      .describe("Shifts the clock of quiet hours and digests (server/clock.ts). Tests only."),
  },
};

const schema = z.object(Object.assign({}, ...Object.values(groups)) as UnionToIntersection<Group>);
type Group = (typeof groups)[keyof typeof groups];
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

export type Env = z.infer<typeof schema> & { APP_URL: string };

/** The configuration in `source` (the process's environment), validated; throws with one line per problem. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = schema
    .refine((v) => v.REQUEST_HEADERS_TIMEOUT_MS <= v.REQUEST_BODY_TIMEOUT_MS, {
      path: ["REQUEST_HEADERS_TIMEOUT_MS"],
      message: "must not be greater than REQUEST_BODY_TIMEOUT_MS",
    })
    .superRefine((v, ctx) => {
      try {
        serverProcesses(v.SERVER_PROCESSES, v.DATABASE_URL);
      } catch (e) {
        ctx.addIssue({
          code: "custom",
          path: ["SERVER_PROCESSES"],
          message: (e as Error).message.replace(/^SERVER_PROCESSES: /, ""),
        });
      }
    })
    .safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const env = parsed.data;
  return { ...env, APP_URL: (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, "") };
}

const g = globalThis as unknown as { __watchEnv?: Env };
export const env: Env = (g.__watchEnv ??= loadEnv());

/** The publishable key Clerk's browser SDK gets (sign-in and dashboard pages), also what their policy allows. */
export const clerkPublishableKey = () => env.NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY ?? env.CLERK_PUBLISHABLE_KEY;
