/**
 * One `npm start` serving from several processes (SERVER_PROCESSES): the primary hands each connection to a worker,
 * and what one process would hold for all of its clients holds across the workers: rate limits, the connections per
 * client address and the metrics. A worker that dies is replaced; SIGTERM stops them all. PostgreSQL tier only, but
 * for the refusal on the embedded database.
 */
import fs from "node:fs";
import http from "node:http";
import { describe, expect, it } from "vitest";
import { oneOverCap } from "../helpers/connections";
import { startServer } from "../helpers/server";
import { waitFor } from "../helpers/wait";

/** The processes whose parent is `pid`. */
function childrenOf(pid: number) {
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return Number(fs.readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A GET on a connection of its own (closed after it): the primary hands each one to the next worker. */
function getAlone(port: number, path: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, agent: false, timeout: 10_000 }, (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      })
      .on("timeout", function (this: http.ClientRequest) {
        this.destroy(new Error(`no answer to ${path} in 10 s`));
      })
      .on("error", reject);
  });
}

describe("one start, several processes", () => {
  it("refuses more than one process on the embedded database, and a value that is not a count", async () => {
    await expect(startServer({ SERVER_PROCESSES: "2", DATABASE_URL: undefined })).rejects.toThrow(
      /SERVER_PROCESSES: more than one process needs PostgreSQL \(DATABASE_URL\)/,
    );
    await expect(startServer({ SERVER_PROCESSES: "many", DATABASE_URL: undefined })).rejects.toThrow(
      /SERVER_PROCESSES: expected a whole number from 1 to 32, or auto/,
    );
  });

  it.skipIf(!process.env.DATABASE_URL)(
    "shares the port, rate limits, the connection cap and /metrics; replaces a worker that dies; stops on SIGTERM",
    { timeout: 240_000 },
    async () => {
      const s = await startServer({ SERVER_PROCESSES: "2", SERVICE_NOAUTH: "1" });
      try {
        expect(s.output()).toMatch(/Watch ready on http:\/\/127\.0\.0\.1:\d+ \(2 processes\)/);
        const workers = childrenOf(s.process.pid!);
        expect(workers).toHaveLength(2);

        // The public list allows 10 requests a minute per client address: one window for both workers.
        const statuses: number[] = [];
        for (let i = 0; i < 12; i++) statuses.push((await getAlone(s.port, "/api/v1/public/tasks")).status);
        expect(statuses).toEqual([...Array(10).fill(200), 429, 429]);

        // Both workers' requests, added up once.
        const metrics = (await getAlone(s.port, "/metrics")).body;
        const count = (status: number) =>
          Number(
            new RegExp(
              `^watch_http_requests_total\\{route="/api/v1/public/tasks",method="GET",status="${status}"\\} (\\d+)$`,
              "m",
            ).exec(metrics)?.[1],
          );
        expect([count(200), count(429)]).toEqual([10, 2]);
        expect(metrics.match(/^watch_runs_due_waiting /gm)).toHaveLength(1);

        // 256 connections per client address across the workers: the next is answered 429.
        const { answer, sockets } = await oneOverCap(s.port, 256);
        sockets.forEach((socket) => socket.destroy());
        expect(answer).toMatch(/^HTTP\/1\.1 429 /);
        // Their closing is counted: new connections are served.
        await waitFor("a connection served again", async () => (await getAlone(s.port, "/api/health")).status === 200);

        // A worker killed: a connection handed to it as it died is closed (its client retries), the other worker
        // serves meanwhile, and a new one takes its place.
        process.kill(workers[0]!, "SIGKILL");
        await waitFor("an answer from the other worker", () =>
          getAlone(s.port, "/api/health").then(
            (r) => r.status === 200,
            () => false,
          ),
        );
        const replaced = await waitFor(
          "a new worker",
          async () => {
            const now = childrenOf(s.process.pid!);
            return now.length === 2 && !now.includes(workers[0]!) && now;
          },
          120_000,
        );
        expect(replaced).toContain(workers[1]);
        const newcomer = replaced.find((pid) => pid !== workers[1]);
        await waitFor("the new worker ready", async () => s.output().includes(`(pid ${newcomer}) ready`), 120_000);
        for (let i = 0; i < 4; i++) expect((await getAlone(s.port, "/api/health")).status).toBe(200);
      } finally {
        const code = await s.stop();
        expect(code).toBe(0);
        expect(childrenOf(s.process.pid!)).toEqual([]);
      }
    },
  );
});
