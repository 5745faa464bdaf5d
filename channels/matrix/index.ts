/**
 * Matrix: an `m.room.message` sent with the client-server API (`PUT …/rooms/{room}/send/m.room.message/{txnId}`) as
 * the account whose access token it is, into a room that account has joined. The transaction id is the message's own
 * (the same on every attempt), so a retry of a message that did arrive is not shown twice.
 */
import { text } from "../../lib/text";
import { ConfigError, defineChannel, field } from "../kit/define";
import { readAnswer, type HttpAnswer } from "../kit/delivery";
import { checkUrl } from "../kit/urls";
import { apprise, T2BOT } from "./apprise";
import { limits } from "./limits";
import { matrixContent } from "./payload";

const ROOM_ID = /^![A-Za-z0-9._~+/=-]+(:[A-Za-z0-9.-]+(:\d{1,5})?|:\[[0-9A-Fa-f:.]+\](:\d{1,5})?)?$/;

/** A rate-limited homeserver says how long to wait in `retry_after_ms` (milliseconds), when not in Retry-After. */
function read(answer: HttpAnswer) {
  const outcome = readAnswer(answer);
  if (answer.status !== 429 || outcome.retryAfterMs !== undefined) return outcome;
  try {
    const ms = Number((JSON.parse(answer.body) as { retry_after_ms?: unknown }).retry_after_ms);
    return Number.isFinite(ms) && ms >= 0 ? { ...outcome, retryAfterMs: ms } : outcome;
  } catch {
    return outcome;
  }
}

export const matrix = defineChannel({
  type: "matrix",
  label: "Matrix",
  help: "Use an account of its own for Watch (a bot user) and invite it to the room. Its access token is in Element under All settings → Help & About → Access token (or from the login API); the room's id (!…:server) under Room settings → Advanced. The homeserver is the address Element connects to (https://matrix.example.org). The token is a secret: it is never shown again in full. Watch cannot encrypt: in an end-to-end encrypted room its messages arrive unencrypted.",
  api: { id: "MatrixNotification", description: "Matrix room (client-server API, m.text with HTML)" },
  fields: {
    homeserver: field(text(), {
      label: "Homeserver URL",
      kind: "url",
      placeholder: "https://matrix.example.org",
      description: "The homeserver's client-server API base, e.g. https://matrix.example.org",
    }),
    access_token: field(text(), {
      label: "Access token",
      kind: "text",
      placeholder: "syt_…",
      secret: "write-only",
      description: "Access token of the account that posts (write-only: reads show it redacted)",
    }),
    room: field(text(), {
      label: "Room id",
      kind: "text",
      placeholder: "!AbCdEfGh:example.org",
      description: "The room's id (!…); the account must have joined it. Aliases (#name:server) are not accepted",
    }),
  },
  example: {
    homeserver: "https://matrix.example.org",
    access_token: "syt_d2F0Y2g_exampleexampleexample_0AbCdE",
    room: "!AbCdEfGhIjKl:example.org",
  },
  check(c, context) {
    const homeserver = checkUrl("matrix homeserver", c.homeserver.trim(), context).replace(/\/+$/, "");
    if (T2BOT.test(homeserver))
      throw new ConfigError(
        "matrix homeserver is t2bot's webhook bridge, not a homeserver: Watch posts with a homeserver's access token",
      );
    if (/[?#]/.test(homeserver)) throw new ConfigError("matrix homeserver must be a base URL, without ? or #");
    const access_token = c.access_token.trim();
    if (!/^[\x21-\x7e]{8,1000}$/.test(access_token))
      throw new ConfigError("matrix access_token has an invalid value (letters, digits and symbols, no spaces)");
    const room = c.room.trim();
    if (room.startsWith("#"))
      throw new ConfigError(
        "matrix room must be the room's id (!…), not an alias: in Element, Room settings → Advanced shows it",
      );
    if (!ROOM_ID.test(room)) throw new ConfigError("matrix room must be a room id such as !AbCdEfGh:example.org");
    return { type: "matrix", homeserver, access_token, room };
  },
  summary: (c) => `${String(c.room ?? "")} on ${String(c.homeserver ?? "")}`,
  apprise,
  limits,
  delivery: {
    request: (m, c) => ({
      url: `${c.homeserver}/_matrix/client/v3/rooms/${encodeURIComponent(c.room)}/send/m.room.message/${encodeURIComponent(`watch.${m.id}`)}`,
      method: "PUT",
      body: matrixContent(m),
      headers: { authorization: `Bearer ${c.access_token}` },
    }),
    read,
  },
});
