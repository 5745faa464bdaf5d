/** Connections held open against a server's per-client cap. */
import net from "node:net";

/**
 * Opens `count` connections to 127.0.0.1:`port` and one more, and answers what that one read before it closed (or
 * after 3 s), with every socket opened; the caller destroys them.
 */
export async function oneOverCap(port: number, count: number) {
  const sockets: net.Socket[] = [];
  const open = () =>
    new Promise<net.Socket>((resolve, reject) => {
      const socket = net.connect(port, "127.0.0.1", () => resolve(socket));
      socket.on("error", reject);
      sockets.push(socket);
    });
  try {
    for (let i = 0; i < count; i++) await open();
    const extra = await open();
    const answer = await new Promise<string>((resolve) => {
      let data = "";
      extra.on("data", (d) => (data += d));
      extra.on("close", () => resolve(data));
      setTimeout(() => resolve(`(still open) ${data}`), 3000);
    });
    return { answer, sockets };
  } catch (e) {
    sockets.forEach((socket) => socket.destroy());
    throw e;
  }
}
