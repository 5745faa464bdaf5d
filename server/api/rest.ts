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
 *
 * A list longer than a page (every watch, or a `limit` over PAGE) is read and sent a page at a time, each page through
 * the same operation (so the same checks and views) and counted once against the rate limits: what the server holds
 * for one answer is one page, however long the list and however slowly the client reads it.
 */
import { createOpenApiNodeHttpHandler } from "trpc-to-openapi";
import { isZodError } from "./errors";
import { jsonTooDeep, TOO_DEEP } from "./json";
import { appRouter } from "./root";
import { createContext, type Context } from "./trpc";
import { listReads, pathPattern, type Meta } from "./wire";
import { log } from "../observability/log.mjs";

type FakeRes = { statusCode: number; headers: Headers; body?: string };
/** The adapter reads `url`, `headers`, `body` (already parsed here) and `signal` of a Request. */
type FakeReq = Request & { queryKeys?: Set<string> };

/** An operation's answer, its body the adapter's JSON text. */
type Answer = { status: number; headers: Headers; body: string | null };

const respond = (a: Answer) => new Response(a.body, { status: a.status, headers: a.headers });

const jsonAnswer = (status: number, body: unknown, headers?: HeadersInit): Answer => {
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  return { status, headers: h, body: JSON.stringify(body) };
};
const json = (status: number, body: unknown, headers?: HeadersInit) => respond(jsonAnswer(status, body, headers));

type State = { ctx?: Context; failed: boolean; continued?: boolean };
const states = new WeakMap<FakeReq, State>();

const handler = createOpenApiNodeHttpHandler({
  router: appRouter,
  createContext: ({ req }: { req: FakeReq }) => {
    const state = states.get(req)!;
    state.ctx = createContext({
      headers: req.headers,
      via: "rest",
      httpMethod: req.method,
      continued: state.continued,
    });
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
  return [
    {
      method: o.method as string,
      path: pathPattern(o.path),
      anonymous: meta.access === "public",
      query: new Set(meta.query ?? []),
    },
  ];
});
const writeAt = (method: string, pathname: string) => writes.find((w) => w.method === method && w.path.test(pathname));

/** The most items of a list read and sent at once. */
export const PAGE = 50;

const lists = listReads(appRouter._def.procedures);

/** How many items a GET asks for when that is more than a page (Infinity: every one), else undefined. */
function longList(url: URL): number | undefined {
  const list = lists.find((l) => l.method === "GET" && l.path?.test(url.pathname));
  if (!list) return undefined;
  const raw = url.searchParams.get("limit");
  if (raw === null) return list.unpaged ? Infinity : undefined;
  // A limit the operation refuses is refused by the operation itself (422), not here.
  const wanted = /^\d+$/.test(raw) ? Number(raw) : NaN;
  return wanted > PAGE && list.limit.safeParse(wanted).success ? wanted : undefined;
}

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

  if (request.method === "GET") {
    const wanted = longList(url);
    if (wanted !== undefined) return sendList(request, url, headers, wanted);
  }
  return respond(await answer(request, url, headers, body, queryKeys));
}

/** The operation's answer to the request as the adapter gives it (`url`, `headers`, `body`: as the client's, read). */
async function answer(
  request: Request,
  url: URL,
  headers: Headers,
  body: unknown,
  queryKeys?: Set<string>,
  continued = false,
): Promise<Answer> {
  const requestId = headers.get("x-request-id")!;
  // What the adapter writes on the request (its parsed query) stays with this call: one request may make several.
  const own: Record<string | symbol, unknown> = { url: url.pathname + url.search, headers, body, queryKeys };
  const req = new Proxy(request, {
    get(target, prop) {
      if (prop in own) return own[prop];
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(_target, prop, value) {
      own[prop] = value;
      return true;
    },
  }) as FakeReq;

  const state: State = { failed: false, continued };
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
    return { status: res.statusCode, headers: res.headers, body: null };
  }
  if (state.failed) {
    const parsed = res.body ? (JSON.parse(res.body) as { detail?: unknown; message?: string }) : {};
    return jsonAnswer(res.statusCode, { detail: parsed.detail ?? parsed.message ?? "Error" }, res.headers);
  }
  return { status: res.statusCode, headers: res.headers, body: res.body ?? null };
}

/**
 * A list of `wanted` items (Infinity: all) from the request's offset, read and sent a page at a time: the first page
 * is read at once (its status and headers are the answer's: a refusal is answered as it is), each next one when the
 * client asks for more. An item that an insert pushed onto the next page is not sent twice (and the list then ends one
 * place later); one deleted meanwhile can make a later one move up past the page being read, and be left out.
 */
async function sendList(request: Request, url: URL, headers: Headers, wanted: number): Promise<Response> {
  const start = Number(url.searchParams.get("offset") ?? 0) || 0;
  let end = start + wanted;
  let offset = start;
  const read = async () => {
    const pageUrl = new URL(url);
    pageUrl.searchParams.set("offset", String(offset));
    pageUrl.searchParams.set("limit", String(Math.min(PAGE, end - offset)));
    const res = await answer(request, pageUrl, headers, undefined, undefined, offset !== start);
    offset += PAGE;
    return res;
  };
  const first = await read();
  if (first.status !== 200) return respond(first);
  // Every item: as many as there were at the first page (one added meanwhile is newer: it would come first). When
  // they fit in the first page (a list of at most PAGE watches, the common case), it is the answer as it is.
  const total = Number(first.headers.get("x-total-count") ?? NaN);
  if (Number.isFinite(total)) end = Math.min(end, total);
  if (offset >= end) return respond(first);
  const pageOf = (text: string) => ({ text, items: JSON.parse(text) as { id?: unknown }[] });
  let page: ReturnType<typeof pageOf> | undefined = pageOf(first.body!);
  if (page.items.length < PAGE) return respond(first);

  const seen = new Set<unknown>();
  const encoder = new TextEncoder();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (page === undefined) {
          const res = await read();
          // A page refused midway (the key revoked, the database gone) cuts the answer short: its status is sent.
          if (res.status !== 200) {
            log.warn(`${url.pathname}: a later page answered ${res.status}; the list was cut short`);
            throw new Error(`${url.pathname}: a later page answered ${res.status}`);
          }
          page = pageOf(res.body!);
        }
        const { text, items } = page;
        // The page's own text when none of its items was sent already (the common case): nothing to write again.
        const moved = items.some((item) => item?.id !== undefined && seen.has(item.id));
        let chunk = sent === 0 ? "[" : "";
        if (!moved && items.length) {
          for (const item of items) seen.add(item?.id);
          chunk += (sent ? "," : "") + text.slice(text.indexOf("[") + 1, text.lastIndexOf("]"));
          sent += items.length;
        } else
          for (const item of items)
            if (item?.id !== undefined && seen.has(item.id))
              end++; // sent already: the list moved down one place, so it ends one place later
            else {
              seen.add(item?.id);
              chunk += (sent++ ? "," : "") + JSON.stringify(item);
            }
        const last = items.length < PAGE || offset >= end;
        page = undefined;
        controller.enqueue(encoder.encode(last ? `${chunk}]` : chunk));
        if (last) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  first.headers.delete("content-length");
  return new Response(body, { status: 200, headers: first.headers });
}
