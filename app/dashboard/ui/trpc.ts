"use client";
/** The dashboard's browser client: the same routers as the REST API, over /api/trpc. */
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import type { AppRouter } from "@/server/api/root";

export const trpc = createTRPCClient<AppRouter>({ links: [httpBatchLink({ url: "/api/trpc" })] });

type Detail = string | { loc: (string | number)[]; msg: string }[];

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
