/**
 * Configuration, validated once. Every variable the service reads is declared here; a bad value stops the
 * server at start with one line per problem.
 */
import { z } from "zod";
import { parseTrustProxy } from "./net/client-address.mjs";

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

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  PORT: positiveInt(8000),
  HOSTNAME: z.string().default("0.0.0.0"),
  DATABASE_URL: optionalString,
  DATA_DIR: z.string().default("./.data"),
  APP_URL: optionalUrl,
  SERVICE_NOAUTH: flag,
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
    }),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),

  CLERK_SECRET_KEY: optionalString,
  CLERK_PUBLISHABLE_KEY: optionalString,
  NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY: optionalString,
  CLERK_JWT_KEY: optionalString.transform((v) => v?.replace(/\\n/g, "\n")),
  CLERK_API_URL: optionalUrl,
  CLERK_AUTHORIZED_PARTIES: optionalString,
  CLERK_WEBHOOK_SECRET: optionalString,
  /**
   * What the pages offer a visitor: `open` a sign-up, `waitlist` the waitlist form instead (the home page and
   * /sign-up). Who may actually create an account is Clerk's setting; set its sign-up mode to match.
   */
  SIGNUPS: z.enum(["open", "waitlist"]).default("open"),

  RESEND_API_KEY: optionalString,
  RESEND_BASE_URL: optionalUrl,
  EMAIL_FROM: z.string().default("Watch <watch@localhost>"),
  EMAILS_PER_USER_PER_DAY: positiveInt(100),
  EMAILS_PER_RECIPIENT_PER_HOUR: positiveInt(10),

  MAX_ACTIVE_TASKS_PER_USER: positiveInt(50),
  RUNS_PER_USER_PER_MONTH: positiveInt(3000),

  AGENT_MODEL: optionalString,
  AGENT_BASE_URL: optionalUrl,
  AGENT_API_KEY: optionalString,
  AGENT_CONCURRENCY: positiveInt(8),
  AGENT_TIMEOUT_MS: positiveInt(120_000),
  GOOGLE_GENERATIVE_AI_API_KEY: optionalString,
  OPENAI_API_KEY: optionalString,
  ANTHROPIC_API_KEY: optionalString,
  PERPLEXITY_API_KEY: optionalString,
  SEARCH_PROVIDER: z.enum(["searxng", "tavily", "brave"]).optional(),
  SEARXNG_URL: optionalUrl,
  TAVILY_API_KEY: optionalString,
  BRAVE_SEARCH_API_KEY: optionalString,
  /** Lets the agent's own page reads (fetch_page, grounding redirects) reach loopback/private addresses. */
  AGENT_FETCH_ALLOW_PRIVATE: flag,

  INNGEST_EVENT_KEY: optionalString,
  INNGEST_SIGNING_KEY: optionalString,
  INNGEST_DEV: flag,
  INNGEST_BASE_URL: optionalUrl,
  /** This process's identity in the embedded engine; each replica needs its own stable value. */
  WATCH_EXECUTOR_ID: z.string().min(1).default("local"),

  MIN_RUN_INTERVAL_MS: positiveInt(5 * 60_000),
  EXECUTION_STUCK_AFTER_MS: positiveInt(30 * 60_000),
  /** Days kept: runs without a finding (CONTRACT §12), and send records. */
  EXECUTION_RETENTION_DAYS: positiveInt(90),
  SEND_RETENTION_DAYS: positiveInt(365),

  UPSTASH_REDIS_REST_URL: optionalUrl,
  UPSTASH_REDIS_REST_TOKEN: optionalString,
  RATE_LIMIT_USER_PER_MIN: positiveInt(60),
  /** Length of a rate-limit window (one minute; shorter only in tests). */
  RATE_LIMIT_WINDOW_MS: positiveInt(60_000),

  WEBHOOK_ALLOW_PRIVATE: flag,
  /** Tests only: shifts the service's clock for quiet hours and digests (server/clock.ts). */
  WATCH_CLOCK_OFFSET_MS: z.coerce.number().int().default(0),
});

export type Env = z.infer<typeof schema> & { APP_URL: string };

function load(): Env {
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const env = parsed.data;
  return { ...env, APP_URL: (env.APP_URL ?? `http://localhost:${env.PORT}`).replace(/\/$/, "") };
}

const g = globalThis as unknown as { __watchEnv?: Env };
export const env: Env = (g.__watchEnv ??= load());

/** The publishable key Clerk's browser SDK gets (sign-in and dashboard pages), also what their policy allows. */
export const clerkPublishableKey = () => env.NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY ?? env.CLERK_PUBLISHABLE_KEY;
