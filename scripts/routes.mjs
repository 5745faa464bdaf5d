/**
 * The route template of a request path (`/w/[id]`, `/api/[...path]`), read from the production build's routes
 * manifest, for metrics and traces: labels by template keep their number bounded, whatever paths clients send. API
 * operations name their own, finer template (`/api/v1/tasks/{id}`, server/api/trpc.ts); a path no route matches is
 * `unmatched`.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** @returns {(pathname: string) => string} */
export function routeTemplates(dir = path.join(root, ".next")) {
  /** @type {{ staticRoutes: { page: string }[], dynamicRoutes: { page: string, regex: string }[] } | undefined} */
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, "routes-manifest.json"), "utf8"));
  } catch {
    manifest = undefined; // the development server writes none up front
  }
  const statics = new Set((manifest?.staticRoutes ?? []).map((r) => r.page));
  const dynamics = (manifest?.dynamicRoutes ?? []).map((r) => ({ page: r.page, regex: new RegExp(r.regex) }));
  return (pathname) => {
    if (pathname.startsWith("/_next/")) return pathname.startsWith("/_next/static/") ? "/_next/static" : "/_next";
    const p = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
    if (statics.has(p)) return p;
    return dynamics.find((r) => r.regex.test(p))?.page ?? "unmatched";
  };
}
