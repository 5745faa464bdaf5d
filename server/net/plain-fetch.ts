/**
 * fetch for model providers' calls: over undici's request, without Next.js's layers. On the server Next.js replaces
 * the global fetch with one that consults its data cache and traces each call, over a second one that dedupes
 * requests by building a `Request` of every call (a POST's body included) only to pass the call on; and fetch itself
 * costs more CPU than the call (request and response objects, web streams). Calls to model providers are never cached,
 * and every agent run makes one or more (docs/benchmarks.md, CPU per run).
 */
import { STATUS_CODES } from "node:http";
import { request, type Dispatcher } from "undici";

/** The runtime's own fetch, which scripts/start.mjs keeps before Next.js wraps the global one (elsewhere: the global). */
const native = (globalThis as { [k: symbol]: typeof fetch | undefined })[Symbol.for("watch.nativeFetch")];

/** Statuses whose response has no body (a `Response` with one cannot be built). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * What fetch answers, for the calls the model SDKs make: a URL, a method, headers and a string or byte body, the
 * answer read whole. Anything else (a `Request`, a streamed or form body) goes to fetch itself.
 */
export async function plainFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const body = init.body ?? undefined;
  if (input instanceof Request || !(body === undefined || typeof body === "string" || body instanceof Uint8Array))
    return (native ?? globalThis.fetch)(input, init);
  let res: Dispatcher.ResponseData;
  let answer: ArrayBuffer;
  try {
    res = await request(input, {
      method: (init.method ?? "GET").toUpperCase() as Dispatcher.HttpMethod,
      headers: Object.fromEntries(new Headers(init.headers)),
      body,
      signal: init.signal ?? undefined,
      maxRedirections: init.redirect === "manual" || init.redirect === "error" ? 0 : 20,
    });
    answer = await res.body.arrayBuffer();
  } catch (e) {
    // As fetch fails: the signal's reason when aborted, else "fetch failed" with the cause (which the SDKs retry).
    if (init.signal?.aborted) throw init.signal.reason;
    throw new TypeError("fetch failed", { cause: e });
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers))
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  // The status's standard reason (undici's request does not pass the server's on): SDKs quote it when a body says nothing.
  const statusText = STATUS_CODES[res.statusCode] ?? "";
  return new Response(NO_BODY.has(res.statusCode) ? null : answer, { status: res.statusCode, statusText, headers });
}
