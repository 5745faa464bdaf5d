/**
 * The REST surface: trpc-to-openapi's node handler over the same routers the dashboard uses, built once per
 * process (its fetch adapter rebuilds the route table on every request), with the API's response rules:
 * errors are exactly `{detail}`, validation errors 422, DELETE 204 and Not Modified 304 without a body. Bodies arrive
 * complete and within the 1 MB cap (the front, scripts/front.mjs, answers 413 before any route runs).
 *
 * A write's input is its JSON body. A write anyone may send without credentials (a follow by email, the waitlist, the
 * buttons behind email links) must say `Content-Type: application/json` even when it has no body: a web page can
 * make its visitors' browsers send a form or a no-cors fetch (a CORS simple request) anywhere, but not that header,
 * which needs a preflight this server never grants. Query strings join a write's input only for WRITE_QUERY_PARAMETERS.
 */
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import { isZodError } from "./errors";
import { jsonTooDeep, TOO_DEEP } from "./json";
import { appRouter } from "./root";
import { createContext, type Context } from "./trpc";
import type { Meta } from "./wire";

type FakeRes = { statusCode: number; headers: Headers; body?: string };
/** The adapter reads `url`, `headers`, `body` (already parsed here) and `signal` of a Request. */
type FakeReq = Request & { queryKeys?: Set<string> };

const json = (status: number, body: unknown, headers?: HeadersInit) => {
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers: h });
};

type State = { ctx?: Context; failed: boolean };
const states = new WeakMap<FakeReq, State>();

const handler = createOpenApiNodeHttpHandler({
  router: appRouter,
  createContext: ({ req }: { req: FakeReq }) => {
    const state = states.get(req)!;
    state.ctx = createContext({ headers: req.headers, via: "rest", httpMethod: req.method });
    state.ctx.queryKeys = req.queryKeys;
    return state.ctx;
  },
  responseMeta: ({ ctx, errors }: { ctx?: Context; errors: { code: string; cause?: unknown }[] }) => {
    if (errors.length) {
      const e = errors[0]!;
      const isValidation = e.code === "BAD_REQUEST" && isZodError(e.cause);
      return { status: isValidation ? 422 : undefined, headers: ctx?.res.headers ?? {} };
    }
    return { status: ctx?.res.status ?? 200, headers: ctx?.res.headers ?? {} };
  },
  // Procedures log their own failures with the request's id (the base procedure in ./trpc).
  onError: ({ req }: { req: FakeReq }) => {
    const state = states.get(req);
    if (state) state.failed = true;
  },
} as never) as unknown as (req: FakeReq, res: unknown) => Promise<void>;

/**
 * The writes (method and path pattern), from the procedures' own meta: which need no credentials (they take a JSON
 * body only, so no cross-site simple request can make a visitor post them), and which query parameters they take
 * (`POST /api/v1/tasks/{id}/execute?force=true`); any other query parameter is not input.
 */
const writes = Object.values(appRouter._def.procedures).flatMap((procedure) => {
  const meta = (procedure as unknown as { _def: { meta?: Meta } })._def.meta;
  const o = meta?.openapi;
  if (!o || o.method === "GET") return [];
  const pattern = o.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+");
  return [
    {
      method: o.method as string,
      path: new RegExp(`^${pattern}$`),
      anonymous: meta.access === "public",
      query: new Set(meta.query ?? []),
    },
  ];
});
const writeAt = (method: string, pathname: string) => writes.find((w) => w.method === method && w.path.test(pathname));

const isJson = (type: string | null) => type?.split(";")[0]!.trim().toLowerCase() === "application/json";

const unsupportedType = (type: string | null) =>
  json(415, { detail: `Unsupported content type '${type || "none"}': send application/json` });

function jsonInvalid(message: string, body: string) {
  return json(422, {
    detail: [{ type: "json_invalid", loc: ["body"], msg: `JSON decode error: ${message}`, input: body.slice(0, 200) }],
  });
}

export async function handleRest(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const headers = new Headers(request.headers);
  const hasBody = !["GET", "HEAD", "DELETE", "OPTIONS"].includes(request.method);
  const requestId = request.headers.get("x-request-id") ?? crypto.randomUUID();
  headers.set("x-request-id", requestId);

  let body: unknown = undefined;
  let queryKeys: Set<string> | undefined;
  if (hasBody) {
    let text: string;
    try {
      text = await request.text();
    } catch {
      // The client went away before the body was read (nobody reads this answer): not a server error worth a stack trace.
      return json(400, { detail: "Request body incomplete" });
    }
    body = {};
    const type = request.headers.get("content-type");
    const write = writeAt(request.method, url.pathname);
    if (!isJson(type) && (text.trim() || write?.anonymous)) return unsupportedType(type);
    if (text.trim()) {
      if (jsonTooDeep(text)) return jsonInvalid(TOO_DEEP, text);
      try {
        body = JSON.parse(text);
      } catch (e) {
        return jsonInvalid((e as Error).message, text);
      }
    }
    headers.set("content-type", "application/json");
    // The query parameter a write takes joins its input; the body wins.
    if (url.search && body && typeof body === "object" && !Array.isArray(body)) {
      const query = Object.fromEntries([...url.searchParams].filter(([k]) => write?.query.has(k)));
      queryKeys = new Set(Object.keys(query).filter((k) => !(k in (body as object))));
      body = { ...query, ...(body as object) };
    }
  }

  const req = new Proxy(request, {
    get(target, prop) {
      if (prop === "url") return url.pathname + url.search;
      if (prop === "headers") return headers;
      if (prop === "body") return body;
      if (prop === "queryKeys") return queryKeys;
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as FakeReq;

  const state: State = { failed: false };
  states.set(req, state);
  const res: FakeRes & { setHeader?: unknown; end?: unknown } = { statusCode: 200, headers: new Headers() };
  const done = new Promise<void>((resolve) => {
    res.setHeader = (k: string, v: string | string[]) =>
      Array.isArray(v) ? v.forEach((x) => res.headers.append(k, x)) : res.headers.set(k, v);
    res.end = (out?: string) => {
      res.body = out;
      resolve();
    };
  });
  await handler(req, res);
  await done;

  res.headers.set("x-request-id", requestId);
  // A procedure answers 304 (Not Modified) by setting ctx.res.status: the client's copy is current, no body.
  if (res.statusCode === 204 || res.statusCode === 304) {
    res.headers.delete("content-type");
    return new Response(null, { status: res.statusCode, headers: res.headers });
  }
  if (state.failed) {
    const parsed = res.body ? (JSON.parse(res.body) as { detail?: unknown; message?: string }) : {};
    return json(res.statusCode, { detail: parsed.detail ?? parsed.message ?? "Error" }, res.headers);
  }
  return new Response(res.body, { status: res.statusCode, headers: res.headers });
}
