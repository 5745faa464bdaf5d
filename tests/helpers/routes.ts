/**
 * The app's route handlers (every `app/**\/route.ts`) called in-process, matched the way the App Router matches them:
 * static segments before `[param]` before `[...catchAll]`, so `/api/v1/public/tasks/id/<id>/rss` reaches its own
 * handler and every other `/api/…` and `/auth/…` path the REST handler (server/api/rest.ts). Pages and the Open Graph
 * image are React rendered by Next.js: those paths are refused with a pointer to the black-box tier.
 */
import fs from "node:fs";
import path from "node:path";
import { root } from "./server";

type Segment = { kind: "static"; name: string } | { kind: "param"; name: string } | { kind: "catchAll"; name: string };
type Route = { file: string; segments: Segment[]; page: boolean };
type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

const APP = path.join(root, "app");

function segment(name: string): Segment {
  const catchAll = /^\[\[?\.\.\.(\w+)\]?\]$/.exec(name);
  if (catchAll) return { kind: "catchAll", name: catchAll[1]! };
  const param = /^\[(\w+)\]$/.exec(name);
  return param ? { kind: "param", name: param[1]! } : { kind: "static", name };
}

const rank = { static: 0, param: 1, catchAll: 2 } as const;

/** The routes, most specific first. */
const routes: Route[] = fs
  .readdirSync(APP, { recursive: true, encoding: "utf8" })
  .filter((f) => /(^|\/)(route\.ts|page\.tsx|opengraph-image\.tsx)$/.test(f))
  .map((f) => {
    const dirs = path
      .dirname(f)
      .split(path.sep)
      .filter((d) => d !== "." && !/^\(.*\)$/.test(d));
    if (f.endsWith("opengraph-image.tsx")) dirs.push("opengraph-image");
    return { file: path.join(APP, f), segments: dirs.map(segment), page: !f.endsWith("route.ts") };
  })
  .sort((a, b) => {
    for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
      const x = a.segments[i];
      const y = b.segments[i];
      if (!x || !y) return x ? -1 : 1;
      if (rank[x.kind] !== rank[y.kind]) return rank[x.kind] - rank[y.kind];
    }
    return 0;
  });

function match(route: Route, parts: string[]) {
  const params: Record<string, string | string[]> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const s = route.segments[i]!;
    if (s.kind === "catchAll") {
      params[s.name] = parts.slice(i);
      return parts.length > i ? params : null;
    }
    const part = parts[i];
    if (part === undefined) return null;
    if (s.kind === "static" && s.name !== part) return null;
    if (s.kind === "param") params[s.name] = part;
  }
  return parts.length === route.segments.length ? params : null;
}

/** A path segment as the router sees it; one that is not valid percent-encoded UTF-8 stays as sent. */
function decoded(part: string) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

const modules = new Map<string, Promise<Record<string, unknown>>>();

/** Answers a request the way the app's route handlers do; HEAD is GET without a body, a missing method 405. */
export async function handleRoute(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  const parts = pathname.split("/").filter(Boolean).map(decoded);
  for (const route of routes) {
    const params = match(route, parts);
    if (!params) continue;
    if (route.page)
      throw new Error(
        `${request.method} ${pathname} is a page (${path.relative(root, route.file)}), rendered by Next.js: test it in tests/http`,
      );
    let loading = modules.get(route.file);
    if (!loading) modules.set(route.file, (loading = import(route.file)));
    const mod = await loading;
    const method = request.method === "HEAD" && !mod.HEAD ? "GET" : request.method;
    const handler = mod[method] as Handler | undefined;
    if (!handler) return new Response(null, { status: 405 });
    const res = await handler(request, { params: Promise.resolve(params) });
    return request.method === "HEAD" ? new Response(null, { status: res.status, headers: res.headers }) : res;
  }
  return Response.json({ detail: "Not Found" }, { status: 404 });
}
