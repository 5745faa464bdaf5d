/**
 * Rate limits (SPEC §8, CONTRACT §7): fixed windows per client IP for the public endpoints and per user for
 * authenticated writes. One `RateLimiter`, chosen here: @upstash/ratelimit on Redis (Upstash REST) when
 * UPSTASH_REDIS_REST_URL/TOKEN are set, so replicas share counts; otherwise the same algorithm in process.
 * A failing store lets the request through (limits protect the service; they must not take it down).
 */
import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis";
import { DomainError } from "../errors";
import { env } from "../env";

export const BUCKETS = {
  "public-list": { limit: 10, per: "ip" },
  "public-task": { limit: 20, per: "ip" },
  /** RSS and JSON Feed: the same findings in two formats, so a reader polling both does not double its allowance. */
  feeds: { limit: 10, per: "ip" },
  /** The verdict badge and the Open Graph image: embedded in other sites' pages, so looked at more often. */
  badge: { limit: 60, per: "ip" },
  waitlist: { limit: 5, per: "ip" },
  follow: { limit: 5, per: "ip" },
  "user-write": {
    get limit() {
      return env.RATE_LIMIT_USER_PER_MIN;
    },
    per: "user",
  },
  "api-key-create": { limit: 3, per: "user" },
  preview: { limit: 10, per: "user" },
  /** Failed API-key authentications (server/auth/api-keys.ts). */
  "api-key-failure": { limit: 20, per: "ip" },
} as const;
export type Bucket = keyof typeof BUCKETS;

export type Verdict = { success: boolean; limit: number; remaining: number; reset: number };
export interface RateLimiter {
  take(bucket: Bucket, key: string): Promise<Verdict>;
}

const windowMs = () => env.RATE_LIMIT_WINDOW_MS;

export function memoryLimiter(now = () => Date.now()): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    async take(bucket, key) {
      const { limit } = BUCKETS[bucket];
      const t = now();
      const start = t - (t % windowMs());
      const id = `${bucket}:${key}`;
      let w = windows.get(id);
      if (!w || w.start !== start) {
        if (windows.size > 50_000) for (const [k, v] of windows) if (v.start !== start) windows.delete(k);
        w = { start, count: 0 };
        windows.set(id, w);
      }
      w.count++;
      return { success: w.count <= limit, limit, remaining: Math.max(0, limit - w.count), reset: start + windowMs() };
    },
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
        limiter: Ratelimit.fixedWindow(BUCKETS[bucket].limit, `${windowMs()} ms`),
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
export function rateLimiter(): RateLimiter {
  return (g.__watchRateLimiter ??=
    env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
      ? upstashLimiter(env.UPSTASH_REDIS_REST_URL, env.UPSTASH_REDIS_REST_TOKEN)
      : memoryLimiter());
}

/** Counts one request; answers the verdict and the headers to send (CONTRACT §7). Fails open. */
export async function takeToken(bucket: Bucket, key: string) {
  let verdict: Verdict;
  try {
    verdict = await rateLimiter().take(bucket, key);
  } catch (e) {
    console.error(`rate limiter unavailable (${bucket}); letting the request through`, e);
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

/** The 429 of CONTRACT §7 as an error; server/api/trpc.ts sends its headers with it. */
export function rateLimitedError(verdict: { retryAfter: number; headers: Record<string, string> }) {
  return new DomainError("rate_limited", rateLimitMessage(verdict.retryAfter), { headers: verdict.headers });
}
