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
 *    IPv6 /64) holds at most MAX_CONNECTIONS_PER_CLIENT connections open at once (a trusted proxy's are exempt);
 *  - a Content-Security-Policy on every HTML answer: pages get theirs with a nonce (proxy.ts); any other HTML (an
 *    error page outside the pages' routes) gets one that runs nothing.
 */
import http from "node:http";
import {
  clientAddress,
  clientGroup,
  isCrossSiteWrite,
  isLoopbackHost,
  isTrustedProxy,
} from "../server/net/client-address.mjs";

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
function refuse(req, res, status, detail) {
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
 * @param {{ handle: (req: http.IncomingMessage, res: http.ServerResponse) => unknown,
 *           upgrade?: (req: http.IncomingMessage, socket: import("node:stream").Duplex, head: Buffer) => unknown,
 *           noauth: boolean, trustProxy: ReturnType<typeof import("../server/net/client-address.mjs").parseTrustProxy>,
 *           headersTimeoutMs?: number, requestTimeoutMs?: number }} opts
 */
export function createFront({
  handle,
  upgrade,
  noauth,
  trustProxy,
  headersTimeoutMs = REQUEST_HEADERS_TIMEOUT_MS,
  requestTimeoutMs = REQUEST_BODY_TIMEOUT_MS,
}) {
  if (headersTimeoutMs > requestTimeoutMs)
    throw new Error("REQUEST_HEADERS_TIMEOUT_MS must not be greater than REQUEST_BODY_TIMEOUT_MS");
  /** @param {HeldBodyRequest} req */
  async function onRequest(req, res, expectsContinue = false) {
    req.headers["x-watch-client-ip"] = clientAddress(
      req.socket.remoteAddress,
      req.headers["x-forwarded-for"],
      trustProxy,
    );
    setSecurityHeaders(res);
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
  const open = new Map();
  server.on("connection", (socket) => {
    if (isTrustedProxy(socket.remoteAddress, trustProxy)) return;
    const client = clientGroup(socket.remoteAddress);
    const count = (open.get(client) ?? 0) + 1;
    if (count > MAX_CONNECTIONS_PER_CLIENT) {
      socket.end(TOO_MANY_CONNECTIONS);
      setTimeout(() => socket.destroy(), LINGER_MS).unref();
      return;
    }
    open.set(client, count);
    socket.once("close", () => {
      const left = open.get(client) - 1;
      if (left > 0) open.set(client, left);
      else open.delete(client);
    });
  });
  // `Expect: 100-continue`: refuse before the client sends the body.
  server.on("checkContinue", (req, res) => onRequest(req, res, true));
  const upgraded = new Set();
  server.on("upgrade", (req, socket, head) => {
    if (!upgrade || (noauth && !isLoopbackHost(req.headers.host))) return void socket.destroy();
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
  return server;
}
