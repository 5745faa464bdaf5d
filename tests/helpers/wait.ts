/** Polling for what the server does in the background (runs, deliveries). */

export async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

type SendsPage = { sends: { error_message?: string | null }[]; total: number };

/**
 * A page of send records once it holds at least `n` and every one is settled: an attempt is recorded as
 * "failed: delivery interrupted" before the request goes out and updated after it. The page and the total
 * are two queries, so both are checked.
 */
export function settledSends<P extends SendsPage>(page: P, n: number): P | false {
  return (
    page.total >= n &&
    page.sends.length >= n &&
    page.sends.every((s) => s.error_message !== "delivery interrupted") &&
    page
  );
}
