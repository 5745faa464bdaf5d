/**
 * Every rate limit: the one place its number is written (the configuration's RATE_LIMIT_USER_PER_MIN and
 * RATE_LIMIT_READS_PER_MIN take their defaults from here). Which buckets an operation counts against is decided by
 * its meta (server/api/wire.ts); the OpenAPI document's 429 texts and headers are generated from here.
 */
export type BucketSpec = {
  /** Counts allowed per window (`RATE_LIMIT_WINDOW_MS`, a minute). */
  limit: number;
  /** Counted per client address, or per signed-in account. */
  per: "ip" | "user";
  /** What one count is, as the documentation of a 429 says it ("requests" unless said). */
  counts?: string;
  /** The configuration variable that overrides `limit`. */
  env?: "RATE_LIMIT_USER_PER_MIN" | "RATE_LIMIT_READS_PER_MIN";
};

export const BUCKETS = {
  "public-list": { limit: 10, per: "ip" },
  "public-task": { limit: 20, per: "ip" },
  "public-findings": { limit: 20, per: "ip" },
  /** RSS and JSON Feed: the same findings in two formats, so a reader polling both does not double its allowance. */
  feeds: { limit: 10, per: "ip" },
  /** The verdict badge and the Open Graph image: embedded in other sites' pages, so looked at more often. */
  badge: { limit: 60, per: "ip" },
  waitlist: { limit: 5, per: "ip" },
  follow: { limit: 5, per: "ip" },
  /** Every other operation without credentials: the buttons behind the links in emails (each with a signed token). */
  public: { limit: 30, per: "ip" },
  /** Every authenticated read (the dashboard's, the API's and MCP's alike), on top of the operation's own bucket. */
  "user-read": { limit: 600, per: "user", counts: "reads", env: "RATE_LIMIT_READS_PER_MIN" },
  /** Every authenticated write, on top of the operation's own bucket. */
  "user-write": { limit: 60, per: "user", counts: "writes", env: "RATE_LIMIT_USER_PER_MIN" },
  "api-key-create": { limit: 3, per: "user", counts: "API keys created" },
  preview: { limit: 10, per: "user", counts: "previews" },
  /** Failed API-key authentications (server/auth/api-keys.ts). */
  "api-key-failure": { limit: 20, per: "ip", counts: "failed API-key checks" },
  /** Requests to an authenticated operation whose credentials are refused (a 401, or 403 for a disabled account). */
  "refused-credentials": { limit: 60, per: "ip", counts: "requests with refused credentials" },
} as const satisfies Record<string, BucketSpec>;
export type Bucket = keyof typeof BUCKETS;
