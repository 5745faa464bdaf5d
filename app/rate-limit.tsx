/** Pages count against the same per-IP buckets as their API twins, before they read or count anything. */
import { headers } from "next/headers";
import { takeToken, type Bucket } from "@/server/ratelimit";

/** Seconds to wait when the visitor is over the bucket's limit, else null. */
export async function pageRateLimit(bucket: Bucket): Promise<number | null> {
  const verdict = await takeToken(bucket, (await headers()).get("x-watch-client-ip") ?? "unknown");
  return verdict.ok ? null : verdict.retryAfter;
}

export function TooManyRequests({ retryAfter }: { retryAfter: number }) {
  return (
    <main className="narrow">
      <div className="status-page">
        <p className="eyebrow">429</p>
        <h1>Slow down a little</h1>
        <p className="lead" role="alert">
          Too many requests. Try again in {retryAfter} seconds.
        </p>
      </div>
    </main>
  );
}
