/** `matrixs://AccessToken@homeserver[:port]/!room:server` (and `matrix://` for plain http). */
import { AppriseError, isHostname, unquote, type Apprise } from "../kit/apprise";

const FORM = "matrixs://token@homeserver/!room:server";
const BRIDGES = `Matrix webhook bridges (t2bot, hookshot, mode=matrix|slack) are not supported: use a homeserver access token, ${FORM}`;
/** A URL of t2bot's webhook bridge (not a homeserver). */
export const T2BOT = /^https?:\/\/webhooks\.t2bot\.io(?=[:/?#]|$)/i;
const NO_ROOM = `Matrix t2bot webhooks are not supported (and this URL has no valid t2bot id or room): use ${FORM}`;

export const apprise: Apprise = {
  schemes: ["matrix", "matrixs"],
  example: "matrixs://syt_AccessToken@matrix.example.org/!RoomId:example.org",
  options: ["mode", "v", "version", "msgtype", "token", "to"],
  // matrix[s]://[user[:password]@]host[:port][/room…][?to=…&token=…&mode=…&v=…&msgtype=…]. Apprise sends with an
  // access token when the URL has a password (or token=) and no user name (`token@host` is read that way): with a
  // user name it logs in, with nothing it registers an account, and its modes post to webhook bridges instead.
  parse(url) {
    const q = url.query;
    const mode = q.mode?.toLowerCase();
    if (mode && !["off", "matrix", "slack", "t2bot", "hookshot"].includes(mode))
      throw new AppriseError("the Matrix mode= is not one of off, matrix, slack, t2bot, hookshot");
    if (mode && mode !== "off") throw new AppriseError(BRIDGES);
    const password = url.password ?? q.token ?? null;
    if (url.user && password)
      throw new AppriseError(`Matrix user/password logins are not supported: Watch needs an access token, ${FORM}`);
    const token = password ?? url.user;
    const rooms = [...url.path, ...(q.to?.split(/[\s,]+/) ?? [])].filter(Boolean);
    if (!token) {
      if (mode === "off")
        throw new AppriseError(
          "Matrix account registration (no credentials) is not supported: Watch needs an access token",
        );
      throw new AppriseError(NO_ROOM);
    }
    const host = isHostname(unquote(url.host));
    if (!host || url.port === 0 || (url.port ?? 0) > 65535)
      throw new AppriseError("the Matrix homeserver host or port is invalid");
    if (rooms.length === 0) throw new AppriseError(NO_ROOM);
    if (rooms.length > 1)
      throw new AppriseError("several Matrix rooms in one URL are not supported: one room per Watch channel");
    const room = rooms[0]!;
    if (room.startsWith("@"))
      throw new AppriseError("Matrix direct messages to users (@user) are not supported: give one room (!id:server)");
    if (room.startsWith("#"))
      throw new AppriseError(
        "Matrix room aliases (#name:server) are not supported: give the room's id (!…:server; in Element, Room settings → Advanced)",
      );
    if (!/^![^:\s]+:\S+$/.test(room))
      throw new AppriseError("a Matrix room is its full id, !id:server (Apprise would add its homeserver's name)");
    // Options last: a URL with the wrong credentials or room is told that first.
    const version = q.v ?? q.version;
    if (version && version !== "3")
      throw new AppriseError(
        version === "2"
          ? "Matrix API r0 (v=2) is not supported: Watch uses the v3 client-server API; remove v=2"
          : "the Matrix version (v=) must be 3",
      );
    const msgtype = q.msgtype?.toLowerCase();
    if (msgtype && msgtype !== "text")
      throw new AppriseError(
        msgtype === "notice"
          ? "Matrix notices (msgtype=notice) are not supported: Watch sends m.text"
          : `not a Matrix URL Watch can use: ${FORM}`,
      );
    return {
      homeserver: `${url.scheme === "matrixs" ? "https" : "http"}://${host}${url.port ? `:${url.port}` : ""}`,
      access_token: token,
      room,
    };
  },
  // A pasted t2bot webhook (any URL of webhooks.t2bot.io) is a bridge's URL, not a homeserver's: Apprise reads its hook
  // form as mode=t2bot, which is refused naming the bridge.
  native: (raw) => {
    if (!T2BOT.test(raw)) return null;
    const m = /^https?:\/\/webhooks\.t2bot\.io\/api\/v1\/matrix\/hook\/([a-z0-9_-]+)\/?(\?.*)?$/i.exec(raw);
    return m ? `matrixs://${m[1]}/?mode=t2bot${m[2] ? `&${m[2].slice(1)}` : ""}` : "matrixs://t2bot/?mode=t2bot";
  },
};
