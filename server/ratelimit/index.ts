/**
 * Rate limits: fixed windows per client address for the public endpoints, per account for authenticated reads and
 * writes. One `RateLimiter`, chosen here: @upstash/ratelimit on Redis (Upstash REST) when
 * UPSTASH_REDIS_REST_URL/TOKEN are set, so replicas share counts; otherwise the same algorithm in memory: this
 * process's, or for the workers of one `npm start` their primary's.
 * A failing store lets the request through (limits protect the service; they must not take it down).
 */
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { DomainError, isDomainError } from "../errors";
import { env } from "../env";
import { clientGroup } from "../net/client-address.mjs";
import { BUCKETS, type Bucket, type BucketSpec } from "./buckets";
import { log } from "../observability/log.mjs";
import { askPrimary, inWorker } from "../processes.mjs";
import { fixedWindows } from "./windows.mjs";
import { forgetOnStop } from "../start-state";

export { BUCKETS, type Bucket } from "./buckets";

/** A bucket's limit: its override variable's value (whose default is the bucket's), else the bucket's. */
export function limitOf(bucket: Bucket): number {
  const spec: BucketSpec = BUCKETS[bucket];
  return (spec.env && env[spec.env]) || spec.limit;
}

const windowMs = () => env.RATE_LIMIT_WINDOW_MS;

/** Seconds of one window. */
export const windowSeconds = () => Math.ceil(windowMs() / 1000);

/** The limit in words, e.g. "5 requests per minute per client address" (the 429 text of the OpenAPI document). */
export function describeLimit(bucket: Bucket): string {
  const spec: BucketSpec = BUCKETS[bucket];
  const seconds = windowSeconds();
  const window = seconds === 60 ? "minute" : `${seconds} seconds`;
  const per = spec.per === "ip" ? "client address" : "account";
  return `${limitOf(bucket)} ${spec.counts ?? "requests"} per ${window} per ${per}${spec.env ? ` (${spec.env})` : ""}`;
}

export type Verdict = { success: boolean; limit: number; remaining: number; reset: number };
export interface RateLimiter {
  take(bucket: Bucket, key: string): Promise<Verdict>;
}

export function memoryLimiter(now = () => Date.now()): RateLimiter {
  const windows = fixedWindows();
  return {
    async take(bucket, key) {
      return windows.take(`${bucket}:${key}`, limitOf(bucket), windowMs(), now());
    },
  };
}

/** The workers of one `npm start` count in their primary's windows. */
function primaryLimiter(): RateLimiter {
  return {
    take: (bucket, key) =>
      askPrimary("rate-limit", { id: `${bucket}:${key}`, limit: limitOf(bucket), windowMs: windowMs() }),
  };
}

function upstashLimiter(url: string, token: string): RateLimiter {
  const redis = new Redis({ url, token });
  const limiters = new Map<Bucket, Ratelimit>();
  const limiter = (bucket: Bucket) => {
    let l = limiters.get(bucket);
    if (!l) {
      l = new Ratelimit({
        redis,
        limiter: Ratelimit.fixedWindow(limitOf(bucket), `${windowMs()} ms`),
        prefix: `watch:rl:${bucket}`,
        ephemeralCache: false,
        timeout: 1000,
      });
      limiters.set(bucket, l);
    }
    return l;
  };
  return {
    async take(bucket, key) {
      const { success, limit, remaining, reset } = await limiter(bucket).limit(key);
      return { success, limit, remaining, reset };
    },
  };
}

const g = globalThis as unknown as { __watchRateLimiter?: RateLimiter };
forgetOnStop(() => (g.__watchRateLimiter = undefined));
export function rateLimiter(): RateLimiter {
  return (g.__watchRateLimiter ??=
    env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
      ? upstashLimiter(env.UPSTASH_REDIS_REST_URL, env.UPSTASH_REDIS_REST_TOKEN)
      : inWorker()
        ? primaryLimiter()
        : memoryLimiter());
}

/**
 * Counts one request, by client IP (an IPv6 /64 counts as one client) or by user; answers the verdict and the headers
 * every answer carries (`X-RateLimit-*`, and `Retry-After` once over the limit). Fails open.
 */
export async function takeToken(bucket: Bucket, key: string) {
  let verdict: Verdict;
  try {
    verdict = await rateLimiter().take(bucket, BUCKETS[bucket].per === "ip" ? clientGroup(key) : key);
  } catch (e) {
    log.error({ err: e }, `rate limiter unavailable (${bucket}); letting the request through`);
    return { ok: true, headers: {} as Record<string, string>, retryAfter: 0 };
  }
  const retryAfter = Math.max(1, Math.ceil((verdict.reset - Date.now()) / 1000));
  const headers: Record<string, string> = {
    "X-RateLimit-Limit": String(verdict.limit),
    "X-RateLimit-Remaining": String(verdict.remaining),
    "X-RateLimit-Reset": String(Math.ceil(verdict.reset / 1000)),
  };
  if (!verdict.success) headers["Retry-After"] = String(retryAfter);
  return { ok: verdict.success, headers, retryAfter };
}

export const rateLimitMessage = (retryAfter: number) => `Rate limit exceeded. Try again in ${retryAfter} seconds.`;

/** The 429 (`{detail}` saying when to retry) as an error; the API sends its headers with it. */
export function rateLimitedError(verdict: { retryAfter: number; headers: Record<string, string> }) {
  return new DomainError("rate_limited", rateLimitMessage(verdict.retryAfter), { headers: verdict.headers });
}

/**
 * A request whose credentials were refused (401, or 403 for a disabled account) counts against its client address:
 * rethrows the refusal with that count's headers, or a 429 once the address is over the limit.
 */
export async function countRefusal(error: unknown, clientIp: string | null): Promise<never> {
  if (!isDomainError(error, "unauthorized") && !isDomainError(error, "forbidden")) throw error;
  const verdict = await takeToken("refused-credentials", clientIp ?? "unknown");
  if (!verdict.ok) throw rateLimitedError(verdict);
  throw new DomainError(error.code, error.message, { cause: error, headers: { ...error.headers, ...verdict.headers } });
}
