/**
 * Two server processes share rate-limit counts through Redis (@upstash/ratelimit over the Upstash REST API,
 * here a local proxy in front of a real redis-server). Skipped where redis-server is not installed;
 * .ci/run installs it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "../helpers/api";
import { startServer, type RunningServer } from "../helpers/server";
import { hasRedisServer, startRedisServer, startUpstashProxy } from "../helpers/stubs/upstash-redis";

describe.skipIf(!hasRedisServer())("rate limits shared by replicas through Redis", () => {
  // An hour-long window: every write of the test counts in one, however slow the machine.
  const WINDOW = 3_600_000;
  let redis: Awaited<ReturnType<typeof startRedisServer>>;
  let proxy: Awaited<ReturnType<typeof startUpstashProxy>>;
  let a: RunningServer;
  let b: RunningServer;
  beforeAll(async () => {
    redis = await startRedisServer();
    proxy = await startUpstashProxy(redis.client);
    const env = {
      SERVICE_NOAUTH: "1",
      UPSTASH_REDIS_REST_URL: proxy.url,
      UPSTASH_REDIS_REST_TOKEN: proxy.token,
      RATE_LIMIT_WINDOW_MS: String(WINDOW),
      RATE_LIMIT_USER_PER_MIN: "4",
    };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await proxy?.close();
    await redis?.stop();
  });

  it("counts writes of one user across both processes", async () => {
    const write = (s: RunningServer, i: number) =>
      call("POST", "/api/v1/tasks", { base: s.url, body: { search_query: `shared ${i}`, state: "paused" } });
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await write(i % 2 ? b : a, i)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const refused = await write(a, 9);
    expect(refused.body.detail).toMatch(/^Rate limit exceeded\. Try again in \d+ seconds\.$/);
    expect(refused.headers.get("x-ratelimit-limit")).toBe("4");
    expect(await redis.client.keys("watch:rl:user-write*")).not.toEqual([]);
  });
});
