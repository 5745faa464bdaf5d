/**
 * npm run bench:key-flood — how the server answers while a flood of made-up API keys shares a real key's lookup id
 * (every one of them reaches the bcrypt check until the failure limit answers 429s): `/api/health` is probed every
 * 5 ms throughout, and its latency printed (p50, p99, max), with the statuses the flood got. The test of the same
 * flood (tests/http/auth.test.ts) checks only what is answered; the timing is measured here.
 * The product as `npm start` runs it, on a throwaway embedded database (DATABASE_URL: on that PostgreSQL instead).
 * BENCH_WAVES (40) waves of BENCH_WAVE_SIZE (5) concurrent requests.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { benchNodeArgs, productArgs, stopped } from "./product.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WAVES = Number(process.env.BENCH_WAVES ?? 40);
const WAVE_SIZE = Number(process.env.BENCH_WAVE_SIZE ?? 5);
const PORT = 18110;
const base = `http://127.0.0.1:${PORT}`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "watch-bench-flood-"));
const child = spawn(process.execPath, [...benchNodeArgs, ...productArgs], {
  cwd: root,
  env: {
    ...process.env,
    PORT: String(PORT),
    HOSTNAME: "127.0.0.1",
    DATA_DIR: dataDir,
    LOG_LEVEL: "warn",
    SERVICE_NOAUTH: "1",
    // An hour-long window: the failure budget is not reset mid-flood.
    RATE_LIMIT_WINDOW_MS: "3600000",
  },
  stdio: ["ignore", "pipe", "inherit"],
});
let out = "";
child.stdout!.on("data", (d) => (out += d));
for (let i = 0; i < 1200 && !/Watch ready on/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
if (!/Watch ready on/.test(out)) {
  await stopped(child);
  throw new Error(`the server did not start:\n${out}`);
}

try {
  const created = await fetch(`${base}/auth/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "bench" }),
  });
  const { key } = (await created.json()) as { key: string };
  if (!key) throw new Error(`creating the API key answered ${created.status}`);
  const me = (k: string) => fetch(`${base}/auth/me`, { headers: { authorization: `Bearer ${k}` } });
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const madeUp = () =>
    key.slice(0, 11) + Array.from({ length: 24 }, () => letters[Math.floor(Math.random() * 26)]).join("");

  // Verified once before the flood, as a real client's key would be: the flood then cannot lock it out.
  if ((await me(key)).status !== 200) throw new Error("the real key does not work");
  const health = () => fetch(`${base}/api/health`).then((r) => r.arrayBuffer());
  await health();
  const latencies: number[] = [];
  let flooding = true;
  const probe = (async () => {
    while (flooding) {
      const started = performance.now();
      await health();
      latencies.push(performance.now() - started);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  const statuses = new Map<number, number>();
  const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const started = performance.now();
  for (let wave = 0; wave < WAVES; wave++) {
    const answers = await Promise.all(Array.from({ length: WAVE_SIZE }, () => me(madeUp())));
    for (const a of answers) {
      count(a.status);
      await a.arrayBuffer();
    }
    const real = await me(key);
    await real.arrayBuffer();
    if (real.status !== 200) console.log(`the real key answered ${real.status} after wave ${wave}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  flooding = false;
  await probe;
  const seconds = (performance.now() - started) / 1000;

  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(latencies.length * q) - 1)]!;
  console.log(`flood: ${WAVES} waves of ${WAVE_SIZE} made-up keys in ${seconds.toFixed(1)} s`);
  console.log(
    `  answers: ${[...statuses].map(([status, n]) => `${n} × ${status}`).join(", ")} (the real key checked after each wave)`,
  );
  console.log(
    `/api/health during the flood (${latencies.length} probes): p50 ${at(0.5).toFixed(1)} ms, p99 ${at(0.99).toFixed(1)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`,
  );
} finally {
  await stopped(child);
  fs.rmSync(dataDir, { recursive: true, force: true });
}
