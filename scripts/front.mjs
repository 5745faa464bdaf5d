/**
 * The node:http server in front of Next.js (production and `npm run dev` alike). It owns what must be decided
 * from the connection before any application code runs, for every route (REST, tRPC, pages, forms):
 *  - the client's address, from the socket (and TRUST_PROXY's trusted hops), written to `x-watch-client-ip`
 *    over anything the client sent; per-IP limits and the loopback test of SERVICE_NOAUTH read only that;
 *  - with SERVICE_NOAUTH on, only loopback Host names (DNS rebinding) and no cross-site browser writes (CSRF):
 *    the mode's authority is "a request from this machine", which a web page must not be able to borrow.
 *    Who such a request acts as stays server/auth's decision;
 *  - the body cap: a body over MAX_BODY_BYTES is refused with 413 as soon as that is known (a declared
 *    Content-Length at once, a chunked body when the limit is crossed), the connection closed, nothing
 *    buffered beyond the cap;
 *  - slow clients: a request's headers must arrive within REQUEST_HEADERS_TIMEOUT_MS (10 s) and the whole request
 *    within REQUEST_BODY_TIMEOUT_MS (30 s), else Node answers 408 and closes the connection; one client address (an
 *    IPv6 /64) holds at most MAX_CONNECTIONS_PER_CLIENT connections open at once (a trusted proxy's are exempt;
 *    with SERVER_PROCESSES above 1, the primary counts them across the workers, scripts/processes.mjs);
 *  - a Content-Security-Policy on every HTML answer: pages get theirs with a nonce (proxy.ts); any other HTML (an
 *    error page outside the pages' routes) gets one that runs nothing;
 *  - what operators watch: each request's id (`x-request-id`, the client's when it is a plain token) and its
 *    context for logs (server/observability/context.mjs), its metrics by route template, its trace span when
 *    tracing is on, GET /metrics, and GET /api/health/ready (503 while starting and from the first moment of a
 *    shutdown, when every other new request is refused with 503 too).
 */
import http from "node:http";
import { randomUUID, timingSafeEqual, createHash } from "node:crypto";
import {
  clientAddress,
  clientGroup,
  isCrossSiteWrite,
  isLoopbackAddress,
  isLoopbackHost,
  isTrustedProxy,
} from "../server/net/client-address.mjs";
import { setRoute, withActivity, currentActivity } from "../server/observability/context.mjs";
import { metrics } from "../server/observability/metrics.mjs";
import { log, logger } from "../server/observability/log.mjs";
import { askPrimary, inWorker } from "../server/processes.mjs";
import { routeTemplates } from "./routes.mjs";

export const MAX_BODY_BYTES = 1024 * 1024;
export const REQUEST_HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_BODY_TIMEOUT_MS = 30_000;
export const MAX_CONNECTIONS_PER_CLIENT = 256;
/** The policy of an HTML answer that brought none of its own: nothing runs, nothing loads but its own images. */
const FALLBACK_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
/** After refusing a body, how long and how much more its sender may send (discarded) before the connection is dropped. */
const LINGER_MS = 2000;
const LINGER_BYTES = 4 * MAX_BODY_BYTES;

/**
 * The front's request class. The HTTP parser pushes body chunks into the request as they arrive; this one
 * holds them (at most MAX_BODY_BYTES) until the front has seen the whole body, and only then lets the
 * application read it. Past the cap, chunks are dropped as they come.
 */
class HeldBodyRequest extends http.IncomingMessage {
  #chunks = [];
  #size = 0;
  #discarded = 0;
  /** "holding" | "released" | "refused" */
  #state = "holding";
  /** @type {((outcome: "complete" | "too-large" | "aborted") => void) | undefined} */
  #settle;
  /** @type {"complete" | "too-large" | "aborted" | undefined} */
  #outcome;

  push(chunk, encoding) {
    if (this.#state === "released") return super.push(chunk, encoding);
    if (this.#state === "refused") {
      if (chunk && (this.#discarded += chunk.length) > LINGER_BYTES) this.socket?.destroy();
      return true;
    }
    if (chunk === null) {
      this.#done("complete");
      return true;
    }
    this.#size += chunk.length;
    if (this.#size > MAX_BODY_BYTES) {
      this.refuseBody();
      this.#done("too-large");
      return true;
    }
    this.#chunks.push(chunk);
    return true;
  }

  #done(outcome) {
    this.#outcome ??= outcome;
    this.#settle?.(this.#outcome);
  }

  /** Waits for the whole body: "complete", "too-large" as soon as it crosses the cap, or "aborted". */
  bodyReceived() {
    if (this.#outcome) return Promise.resolve(this.#outcome);
    return new Promise((resolve) => {
      this.#settle = resolve;
      this.once("close", () => this.#done("aborted"));
    });
  }

  /** Hands the held body to whoever reads this request (Next.js). */
  release() {
    this.#state = "released";
    for (const chunk of this.#chunks) super.push(chunk);
    this.#chunks = [];
    super.push(null);
  }

  /** Drops the held body and whatever still arrives. */
  refuseBody() {
    this.#state = "refused";
    this.#chunks = [];
  }
}

function hasBody(req) {
  return req.headers["transfer-encoding"] !== undefined || Number(req.headers["content-length"] ?? 0) > 0;
}

function noauthRefusal(req) {
  if (!isLoopbackHost(req.headers.host))
    return [
      421,
      "SERVICE_NOAUTH=1 answers only requests addressed to this machine (Host localhost, 127.0.0.1 or [::1])",
    ];
  if (isCrossSiteWrite(req.method, (name) => req.headers[name]))
    return [
      403,
      "Cross-site request refused: with SERVICE_NOAUTH=1 only this server's own pages and non-browser clients may write",
    ];
  return null;
}

/**
 * Answers `{detail}` without handing the request on. An unread body is not read: the answer says
 * `Connection: close`, then the connection lingers briefly (its input discarded) so that the client reads the
 * answer rather than a reset, and is dropped.
 */
function refuse(req, res, status, detail, headers = {}) {
  req.refuseBody();
  const unread = hasBody(req) && !req.complete;
  if (unread) {
    const socket = req.socket;
    // Node ends a `Connection: close` response with destroySoon(): closing with unread input would reset the
    // connection, and a client still sending may lose the answer. Half-close instead, and drop it later.
    socket.destroySoon = () => {
      socket.end();
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
    };
  }
  const body = JSON.stringify({ detail });
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...(unread ? { connection: "close" } : {}),
    ...headers,
  });
  res.end(body);
}

function answerJson(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(body);
}

/** A client's own request id is kept when it is a plain token (it is written to logs); otherwise a new one. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

const sha256 = (s) => createHash("sha256").update(s).digest();

/**
 * GET /metrics: with METRICS_TOKEN set, only to its bearer; without it, only to a client on this machine (the real
 * client: behind a trusted proxy on the same host, the address the proxy forwarded, not the proxy's own).
 */
async function serveMetrics(req, res, token) {
  const auth = String(req.headers.authorization ?? "");
  if (token ? !(auth.startsWith("Bearer ") && timingSafeEqual(sha256(auth.slice(7)), sha256(token))) : false)
    return refuse(req, res, 401, "Not authenticated", { "www-authenticate": "Bearer" });
  if (!token && !isLoopbackAddress(req.headers["x-watch-client-ip"]))
    return refuse(
      req,
      res,
      403,
      "Metrics are served to this machine only: set METRICS_TOKEN to scrape them from elsewhere",
    );
  const { registry } = metrics();
  let body;
  try {
    // A worker of several serves every worker's, added up by the primary.
    body = inWorker() ? await askPrimary("metrics", undefined, 10_000) : await registry.metrics();
  } catch (e) {
    log.error({ err: e }, "metrics unavailable");
    return refuse(req, res, 503, "Metrics are unavailable: retry the request");
  }
  res.writeHead(200, {
    "content-type": registry.contentType,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  res.end(body);
}

/**
 * Headers for every response (API, RSS, static files, errors, refusals); pages add their Content-Security-Policy
 * (proxy.ts), and an HTML answer without one gets FALLBACK_CSP as its headers go out.
 */
function setSecurityHeaders(res) {
  res.setHeader("x-content-type-options", "nosniff");
  res.setHeader("referrer-policy", "strict-origin-when-cross-origin");
  const writeHead = res.writeHead;
  res.writeHead = function (status, ...rest) {
    const given = rest.find((r) => r && typeof r === "object" && !Array.isArray(r)) ?? {};
    const header = (name) => this.getHeader(name) ?? Object.entries(given).find(([k]) => k.toLowerCase() === name)?.[1];
    if (/^\s*text\/html/i.test(String(header("content-type") ?? "")) && header("content-security-policy") === undefined)
      this.setHeader("content-security-policy", FALLBACK_CSP);
    return writeHead.call(this, status, ...rest);
  };
}

/** The answer to a connection over MAX_CONNECTIONS_PER_CLIENT, written before it could send a request. */
const TOO_MANY_CONNECTIONS = (() => {
  const body = JSON.stringify({
    detail: `Too many open connections from your address (at most ${MAX_CONNECTIONS_PER_CLIENT})`,
  });
  return (
    "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nConnection: close\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
})();

/**
 * MAX_CONNECTIONS_PER_CLIENT, counted per client address (an IPv6 /64): `admit` answers a new connection's client,
 * null for a trusted proxy's (not counted), or false when it is one too many, answered 429 and closed; `release`
 * counts one of the client's connections closed.
 */
export function connectionCap(trustProxy) {
  const open = new Map();
  return {
    /** @param {import("node:net").Socket} socket @returns {string | null | false} */
    admit(socket) {
      if (isTrustedProxy(socket.remoteAddress, trustProxy)) return null;
      const client = clientGroup(socket.remoteAddress);
      const count = (open.get(client) ?? 0) + 1;
      if (count > MAX_CONNECTIONS_PER_CLIENT) {
        socket.end(TOO_MANY_CONNECTIONS);
        setTimeout(() => socket.destroy(), LINGER_MS).unref();
        return false;
      }
      open.set(client, count);
      return client;
    },
    /** @param {string} client */
    release(client) {
      const left = open.get(client) - 1;
      if (left > 0) open.set(client, left);
      else open.delete(client);
    },
  };
}

/**
 * @param {{ handle: (req: http.IncomingMessage, res: http.ServerResponse) => unknown,
 *           upgrade?: (req: http.IncomingMessage, socket: import("node:stream").Duplex, head: Buffer) => unknown,
 *           noauth: boolean, trustProxy: ReturnType<typeof import("../server/net/client-address.mjs").parseTrustProxy>,
 *           headersTimeoutMs?: number, requestTimeoutMs?: number, metricsToken?: string, countConnections?: boolean,
 *           trace?: (req: http.IncomingMessage, requestId: string) => { run: <T>(fn: () => T) => T, end: (route: string, status: number) => void } }} opts
 */
export function createFront({
  handle,
  upgrade,
  noauth,
  trustProxy,
  headersTimeoutMs = REQUEST_HEADERS_TIMEOUT_MS,
  requestTimeoutMs = REQUEST_BODY_TIMEOUT_MS,
  metricsToken,
  trace,
  countConnections = true,
}) {
  if (headersTimeoutMs > requestTimeoutMs)
    throw new Error("REQUEST_HEADERS_TIMEOUT_MS must not be greater than REQUEST_BODY_TIMEOUT_MS");
  /** "starting" until the server has answered its first health check, "ready", then "stopping" (drain()). */
  let phase = "starting";
  const routeOf = routeTemplates();

  /** @param {HeldBodyRequest} req */
  async function onRequest(req, res, expectsContinue = false) {
    req.headers["x-watch-client-ip"] = clientAddress(
      req.socket.remoteAddress,
      req.headers["x-forwarded-for"],
      trustProxy,
    );
    const given = req.headers["x-request-id"];
    const requestId = typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    req.headers["x-request-id"] = requestId;
    res.setHeader("x-request-id", requestId);
    setSecurityHeaders(res);
    return withActivity({ request_id: requestId }, () => {
      const started = performance.now();
      const activity = currentActivity();
      const span = trace?.(req, requestId);
      // The request's ids are given to its log line: the close event does not run in the request's context (binding
      // the listener to it, AsyncResource.bind, cost more than the rest of this listener).
      res.once("close", () => {
        const path = (req.url ?? "/").split("?")[0];
        const route = activity.route ?? routeOf(path);
        const method = METHODS.has(req.method) ? req.method : "OTHER";
        // A client that went away before the whole answer was written: nginx's 499.
        const status = res.writableFinished ? res.statusCode : 499;
        const seconds = (performance.now() - started) / 1000;
        const m = metrics();
        m.httpRequests.inc({ route, method, status });
        m.httpDuration.observe({ route, method }, seconds);
        span?.end(route, status);
        if (logger().isLevelEnabled("debug"))
          log.debug({ ...activity.ids, method, route, status, duration_ms: Math.round(seconds * 1000) }, "request");
      });
      const run = () => serve(req, res, expectsContinue);
      return span ? span.run(run) : run();
    });
  }

  /** @param {HeldBodyRequest} req */
  async function serve(req, res, expectsContinue) {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/api/health/ready") {
      setRoute(path);
      req.refuseBody();
      return answerJson(res, phase === "ready" ? 200 : 503, { status: phase });
    }
    if (req.method === "GET" && path === "/metrics") {
      setRoute(path);
      return serveMetrics(req, res, metricsToken);
    }
    if (phase === "stopping")
      return refuse(req, res, 503, "The server is shutting down: retry the request", {
        "retry-after": "1",
        connection: "close",
      });
    const refusal = noauth ? noauthRefusal(req) : null;
    if (refusal) return refuse(req, res, ...refusal);
    if (Number(req.headers["content-length"] ?? 0) > MAX_BODY_BYTES)
      return refuse(req, res, 413, "Request body too large");
    if (expectsContinue) res.writeContinue();
    const outcome = await req.bodyReceived();
    if (outcome === "aborted") return;
    if (outcome === "too-large") return refuse(req, res, 413, "Request body too large");
    req.release();
    return handle(req, res);
  }

  const server = http.createServer(
    {
      IncomingMessage: HeldBodyRequest,
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      // How often Node looks for requests past those times (its default, 30 s, would let one run on that much longer).
      connectionsCheckingInterval: Math.min(1000, Math.ceil(headersTimeoutMs / 4)),
    },
    (req, res) => onRequest(req, res),
  );
  if (countConnections) {
    const cap = connectionCap(trustProxy);
    server.on("connection", (socket) => {
      const client = cap.admit(socket);
      if (client) socket.once("close", () => cap.release(client));
    });
  }
  // `Expect: 100-continue`: refuse before the client sends the body.
  server.on("checkContinue", (req, res) => onRequest(req, res, true));
  const upgraded = new Set();
  server.on("upgrade", (req, socket, head) => {
    if (!upgrade || phase === "stopping" || (noauth && !isLoopbackHost(req.headers.host))) return void socket.destroy();
    req.headers["x-watch-client-ip"] = clientAddress(
      req.socket.remoteAddress,
      req.headers["x-forwarded-for"],
      trustProxy,
    );
    upgraded.add(socket);
    socket.once("close", () => upgraded.delete(socket));
    upgrade(req, socket, head);
  });
  // An upgraded connection (the development server's live reload) lives until the page goes away: closing the
  // server ends them, or close() would wait for them forever.
  const close = server.close.bind(server);
  server.close = (callback) => {
    for (const socket of upgraded) socket.destroy();
    return close(callback);
  };
  return Object.assign(server, {
    /** The server has started: readiness answers 200. */
    ready() {
      if (phase === "starting") phase = "ready";
    },
    /** A shutdown has begun: readiness answers 503, and so does every new request (with `Connection: close`). */
    drain() {
      phase = "stopping";
    },
  });
}
