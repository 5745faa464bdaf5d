/**
 * Mattermost, Google Chat, a Matrix homeserver, Pushover, Gotify and an Apprise API, stubbed at one local address,
 * each under its own path prefix (`/mattermost`, `/googlechat`, `/matrix`, `/pushover`, `/gotify`, `/apprise`) and
 * speaking its service's wire format: what each takes (its method, path, credentials and body, checked as the service
 * checks them) and what it answers, success and refusal alike. A homeserver shows a message sent again under the same
 * transaction id once. `failNext` queues the answers a service gives before it recovers (a 503, a 429 with its wait).
 *
 *   const services = await startChatServices();
 *   services.failNext("matrix", { status: 429, json: { errcode: "M_LIMIT_EXCEEDED", retry_after_ms: 2000 } });
 *   services.delivered("gotify")   // the messages it accepted, oldest first
 */
import { randomUUID } from "node:crypto";
import { startStub, type StubReply, type StubRequest } from "./http";

/** The credentials the stubs take (any other is refused as the service refuses it). */
export const CHAT_SECRETS = {
  mattermost: "mmhooktokenabcdefghijklmno",
  googlechat: { key: "AIzaSyStubKey", token: "stubTokenSECRET" },
  matrix: "syt_c3R1Yg_stubSECRETtoken_0AbCdE",
  pushover: { token: "azGDORePK8gMaC0QOYAMyEEuzJnyUi", user: "uQiRzpo4DXghDmr9QzzfQu27cmVRsG" },
  gotify: "AbCdEfSECRETgotify",
  apprise: "watch-stub-key",
} as const;

export type ChatService = "mattermost" | "googlechat" | "matrix" | "pushover" | "gotify" | "apprise";
type Delivered = { body: Record<string, unknown>; request: StubRequest };

const json = (status: number, body: unknown): StubReply => ({ status, json: body });

export async function startChatServices() {
  const delivered: Record<ChatService, Delivered[]> = {
    mattermost: [],
    googlechat: [],
    matrix: [],
    pushover: [],
    gotify: [],
    apprise: [],
  };
  const queued = new Map<ChatService, StubReply[]>();
  /** A homeserver's transactions: a repeated (token, txn id) gets the first event's id, and is not shown twice. */
  const transactions = new Map<string, string>();

  function parse(req: StubRequest): Record<string, unknown> | null {
    if (!String(req.headers["content-type"] ?? "").startsWith("application/json")) return null;
    try {
      const body = JSON.parse(req.body) as unknown;
      return body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }

  function answer(service: ChatService, req: StubRequest, path: string): StubReply {
    const body = parse(req);
    const url = new URL(path, "http://stub");
    const accept = (reply: StubReply) => (delivered[service].push({ body: body!, request: req }), reply);
    switch (service) {
      case "mattermost": {
        // POST /hooks/{id} {"text", "channel"?}: 200 "ok"; a missing text or an unknown hook is a 400.
        const hook = /^\/hooks\/([^/]+)$/.exec(url.pathname)?.[1];
        if (req.method !== "POST" || hook !== CHAT_SECRETS.mattermost)
          return json(400, {
            id: "web.incoming_webhook.invalid.app_error",
            message: "Invalid webhook.",
            status_code: 400,
          });
        if (!body || typeof body.text !== "string" || !body.text)
          return json(400, {
            id: "web.incoming_webhook.text.app_error",
            message: "No text specified.",
            status_code: 400,
          });
        return accept({ status: 200, text: "ok" });
      }
      case "googlechat": {
        // POST /v1/spaces/{space}/messages?key&token {text?, cardsV2?, thread?}: the created message.
        const space = /^\/v1\/spaces\/([^/]+)\/messages$/.exec(url.pathname)?.[1];
        const { key, token } = CHAT_SECRETS.googlechat;
        if (!space || url.searchParams.get("key") !== key || url.searchParams.get("token") !== token)
          return json(401, {
            error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" },
          });
        if (!body || (typeof body.text !== "string" && !Array.isArray(body.cardsV2)))
          return json(400, { error: { code: 400, message: "Message cannot be empty.", status: "INVALID_ARGUMENT" } });
        const thread = (body.thread as { threadKey?: string } | undefined)?.threadKey;
        if (thread && url.searchParams.get("messageReplyOption") !== "REPLY_MESSAGE_FALLBACK_TO_NEW_THREAD")
          return json(400, {
            error: { code: 400, message: "Thread key without a reply option.", status: "INVALID_ARGUMENT" },
          });
        const name = `spaces/${space}/messages/${randomUUID()}`;
        return accept(
          json(200, { name, text: body.text, thread: { name: `spaces/${space}/threads/${thread ?? "t"}` } }),
        );
      }
      case "matrix": {
        // PUT /_matrix/client/v3/rooms/{roomId}/send/m.room.message/{txnId} with a bearer token: {"event_id"}.
        const m = /^\/_matrix\/client\/v3\/rooms\/([^/]+)\/send\/m\.room\.message\/([^/]+)$/.exec(url.pathname);
        if (req.headers.authorization !== `Bearer ${CHAT_SECRETS.matrix}`)
          return json(401, { errcode: "M_UNKNOWN_TOKEN", error: "Invalid access token passed." });
        if (!m || req.method !== "PUT") return json(404, { errcode: "M_UNRECOGNIZED", error: "Unrecognized request" });
        if (!decodeURIComponent(m[1]!).startsWith("!"))
          return json(400, { errcode: "M_INVALID_PARAM", error: "Room ID is invalid" });
        if (!body || typeof body.msgtype !== "string" || typeof body.body !== "string")
          return json(400, { errcode: "M_BAD_JSON", error: "Content must have a msgtype and a body" });
        const seen = transactions.get(m[2]!);
        if (seen) return json(200, { event_id: seen });
        const event_id = `$${randomUUID()}`;
        transactions.set(m[2]!, event_id);
        return accept(json(200, { event_id }));
      }
      case "pushover": {
        // POST /1/messages.json {token, user, message, …}: {"status":1,"request"}; a bad one {"status":0,"errors"}.
        const request = randomUUID();
        if (url.pathname !== "/1/messages.json" || !body) return json(404, { status: 0, request });
        if (body.token !== CHAT_SECRETS.pushover.token)
          return json(400, { token: "invalid", errors: ["application token is invalid"], status: 0, request });
        if (body.user !== CHAT_SECRETS.pushover.user)
          return json(400, {
            user: "invalid",
            errors: ["user identifier is not a valid user, group, or subscribed user key"],
            status: 0,
            request,
          });
        const message = String(body.message ?? "");
        if (!message || [...message].length > 1024 || [...String(body.title ?? "")].length > 250)
          return json(400, {
            message: "invalid",
            errors: ["message cannot be blank or longer than 1024 characters"],
            status: 0,
            request,
          });
        return accept(json(200, { status: 1, request }));
      }
      case "gotify": {
        // POST /message with X-Gotify-Key {title, message, priority, extras}: the stored message.
        if (req.headers["x-gotify-key"] !== CHAT_SECRETS.gotify)
          return json(401, {
            error: "Unauthorized",
            errorCode: 401,
            errorDescription: "you need to provide a valid access token or user credentials to access this api",
          });
        if (url.pathname !== "/message" || !body || typeof body.message !== "string" || !body.message)
          return json(400, { error: "Bad Request", errorCode: 400, errorDescription: "Field 'message' is required" });
        return accept(
          json(200, { id: delivered.gotify.length + 1, appid: 1, date: new Date().toISOString(), ...body }),
        );
      }
      case "apprise": {
        // POST /notify/{key} {body, title?, type?, format?, tag?}: 200; a key without configuration is a 204.
        const key = /^\/notify\/([^/]+)\/?$/.exec(url.pathname)?.[1];
        if (!body || typeof body.body !== "string" || !body.body)
          return { status: 400, text: "Bad FORM Payload provided" };
        if (key !== CHAT_SECRETS.apprise) return { status: 204, text: "" };
        return accept({ status: 200, text: "Notification(s) sent." });
      }
    }
  }

  const stub = await startStub((req) => {
    const [, service, ...rest] = req.url.split("/");
    const s = service as ChatService;
    if (!(s in delivered)) return { status: 404, text: "no such service" };
    const next = queued.get(s)?.shift();
    return next ?? answer(s, req, `/${rest.join("/")}`);
  });

  return {
    url: stub.url,
    requests: stub.requests,
    /** What the service accepted, oldest first. */
    delivered: (service: ChatService) => delivered[service],
    /** The service gives these answers to its next requests, then answers as itself again. */
    failNext: (service: ChatService, ...replies: StubReply[]) =>
      void queued.set(service, [...(queued.get(service) ?? []), ...replies]),
    close: stub.close,
  };
}
