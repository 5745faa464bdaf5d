"use client";
/** The dashboard's browser client: the same routers as the REST API, over /api/trpc. */
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import type { ValidationIssue } from "@/client/errors";
import type { AppRouter } from "@/server/api/root";
import { MAX_BATCH_SIZE } from "@/app/api/trpc/limits";

type ClerkGlobal = { session?: { getToken: (o: { skipCache: boolean }) => Promise<string | null> } | null };

/**
 * Clerk's session token lives a minute and Clerk's browser SDK refreshes the `__session` cookie in the
 * background; after a sleeping tab a call can still carry an expired token: refresh it and retry once.
 */
async function fetchWithFreshSession(input: RequestInfo | URL, init?: RequestInit) {
  const res = await fetch(input, init);
  const clerk = (window as unknown as { Clerk?: ClerkGlobal }).Clerk;
  if (res.status !== 401 || !clerk?.session) return res;
  await clerk.session.getToken({ skipCache: true });
  return fetch(input, init);
}

export const trpc = createTRPCClient<AppRouter>({
  links: [httpBatchLink({ url: "/api/trpc", maxItems: MAX_BATCH_SIZE, fetch: fetchWithFreshSession })],
});

type Detail = string | ValidationIssue[];

function detailOf(e: unknown): Detail | undefined {
  return e instanceof TRPCClientError ? ((e.shape as { detail?: Detail } | undefined)?.detail ?? e.message) : undefined;
}

/** The server's `detail` as one readable sentence. */
export function errorMessage(e: unknown): string {
  const detail = detailOf(e);
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) return detail.map((d) => `${d.loc.slice(1).join(".")}: ${d.msg}`).join("; ");
  return "Something went wrong. Check your connection and try again.";
}

/** Validation errors by field name (the first element of `loc` after body/query/path). */
export function fieldErrors(e: unknown): Record<string, string> {
  const detail = detailOf(e);
  if (!Array.isArray(detail)) return {};
  return Object.fromEntries(detail.map((d) => [String(d.loc[1] ?? ""), d.msg]));
}

export function statusOf(e: unknown): number | undefined {
  return e instanceof TRPCClientError ? (e.data as { httpStatus?: number } | undefined)?.httpStatus : undefined;
}
