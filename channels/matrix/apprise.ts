/** `matrixs://AccessToken@homeserver[:port]/!room:server` (and `matrix://` for plain http). */
import { AppriseError, hostPart, pathParts, type Apprise } from "../kit/apprise";

const FORM = "matrixs://token@homeserver/!room:server";
const BRIDGES = `Matrix webhook bridges (t2bot, hookshot, mode=matrix|slack) are not supported: use a homeserver access token, ${FORM}`;

export const apprise: Apprise = {
  schemes: ["matrix", "matrixs"],
  example: "matrixs://syt_AccessToken@matrix.example.org/!RoomId:example.org",
  // matrix[s]://[user[:password]@]host[:port][/room…][?to=…&token=…&mode=…&v=…&msgtype=…]. Apprise sends with an
  // access token when the URL has a password (or token=) and no user name: `token@host`. With a user name it logs in,
  // with nothing it registers an account, and its modes post to webhook bridges instead of a homeserver.
  parse(url) {
    const q = url.searchParams;
    const mode = q.get("mode")?.toLowerCase();
    if (mode && !["off", "matrix", "slack", "t2bot", "hookshot"].includes(mode))
      throw new AppriseError("the Matrix mode= is not one of off, matrix, slack, t2bot, hookshot");
    if (mode && mode !== "off") throw new AppriseError(BRIDGES);
    const version = q.get("v") ?? q.get("version");
    if (version && version !== "3")
      throw new AppriseError(
        version === "2"
          ? "Matrix API r0 (v=2) is not supported: Watch uses the v3 client-server API; remove v=2"
          : "the Matrix version (v=) must be 3",
      );
    const msgtype = q.get("msgtype")?.toLowerCase();
    if (msgtype && msgtype !== "text")
      throw new AppriseError(
        msgtype === "notice"
          ? "Matrix notices (msgtype=notice) are not supported: Watch sends m.text"
          : `not a Matrix URL Watch can use: ${FORM}`,
      );
    const user = decodeURIComponent(url.username);
    const password = url.password ? decodeURIComponent(url.password) : q.get("token");
    // user@host alone is Apprise's access-token form (it takes the name as the token).
    const token = password && !user ? password : !password && user ? user : null;
    if (user && password)
      throw new AppriseError(`Matrix user/password logins are not supported: Watch needs an access token, ${FORM}`);
    const rooms = [
      ...pathParts(url),
      ...(url.hash ? decodeURIComponent(url.hash).split("/") : []),
      ...(q.get("to")?.split(/[\s,]+/) ?? []),
    ].filter(Boolean);
    if (!token) {
      if (mode === "off")
        throw new AppriseError(
          "Matrix account registration (no credentials) is not supported: Watch needs an access token",
        );
      throw new AppriseError(
        `Matrix t2bot webhooks are not supported (and this URL has no valid t2bot id or room): use ${FORM}`,
      );
    }
    if (!hostPart(url)) throw new AppriseError(`not a Matrix URL Watch can use: ${FORM}`);
    if (rooms.length === 0)
      throw new AppriseError(
        `Matrix t2bot webhooks are not supported (and this URL has no valid t2bot id or room): use ${FORM}`,
      );
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
    return {
      homeserver: `${url.protocol === "matrixs:" ? "https" : "http"}://${url.host}`,
      access_token: token,
      room,
    };
  },
  // A pasted t2bot webhook is a bridge's URL, not a homeserver's.
  native(url) {
    if (url.hostname === "webhooks.t2bot.io") throw new AppriseError(BRIDGES);
    return null;
  },
};
