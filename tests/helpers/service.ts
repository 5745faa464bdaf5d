/**
 * The in-process tier: the whole service in the test file's own process, without Next.js and without the node:http
 * front. The REST API (server/api/rest.ts) and the other route handlers answer `Request`s directly (./routes.ts), the
 * dashboard's tRPC routers through `createCaller`, and runs go through the embedded engine (DBOS) on a database of
 * the file's own (a copy of the run's template: PGlite, or PostgreSQL with DATABASE_URL set); every outside service
 * is a local stub (./stubs). Starting takes about a second instead of a server's seven.
 *
 *   const app = withService({ SERVICE_NOAUTH: "1" });          // at the top of a test file: variables as for a server
 *   const user = await app.newUser();
 *   const r = await app.call("POST", "/api/v1/tasks", { auth: user.token, body: { search_query: "…" } });
 *   const list = await app.trpc(user.token).tasks.list({});   // the dashboard's transport
 *   app.stubs.model.answer("…", decisionFor({ … }));          // what the agent finds for that watch
 *
 * Defaults: Clerk (tokens from `app.stubs.clerk`), the stub model, search and email, webhooks to loopback allowed,
 * no SERVICE_NOAUTH. The front's part is played here: the client address is 127.0.0.1, or what TRUST_PROXY makes of
 * an X-Forwarded-For header. What needs a real process (start-up, crashes, the front's limits, pages rendered by
 * Next.js, replicas, outages) is tested in tests/http.
 */
import { afterAll, beforeAll } from "vitest";
import { appRouter } from "@/server/api/root";
import { createContext } from "@/server/api/trpc";
import { db } from "@/server/db";
import { env, groups, loadEnv } from "@/server/env";
import { startServices, stopServices } from "@/server/lifecycle";
import { clientAddress } from "@/server/net/client-address.mjs";
import { memoryLimiter, type RateLimiter } from "@/server/ratelimit";
import { TEST_AUTHORIZED_PARTY } from "./clerk";
import { apiClient } from "./client";
import { handleRoute } from "./routes";
import { freshDatabaseUrl, freshDataDir, TEST_SHARED_BUFFERS } from "./server";
import { startStubs, type Stubs } from "./stubs";

type Vars = Record<string, string | undefined>;

/**
 * Where the in-process service lives (its APP_URL, also the origin test session tokens are issued for): `fetch` to it
 * from this process reaches the service, so clients under test (the SDK, the CLI) take it as their base URL.
 */
export const SERVICE_URL = TEST_AUTHORIZED_PARTY;

const VARIABLES = Object.values(groups).flatMap((group) => Object.keys(group));
/** This process's own: where test databases are made (the cluster in the Postgres tier), and the test runner's mode. */
const OWN = new Set(["DATABASE_URL", "DATA_DIR", "NODE_ENV"]);

/**
 * Replaces the service's configuration by `vars` over the defaults (validated as at a server's start), with the test
 * database's small shared buffers unless `vars` say otherwise. Some libraries read a variable themselves (Resend its
 * base URL), so the process's environment says the same, as a server's would.
 */
function configure(given: Vars) {
  const vars: Vars = { EMBEDDED_SHARED_BUFFERS: TEST_SHARED_BUFFERS, ...given };
  const next = loadEnv(vars);
  for (const key of Object.keys(env)) delete (env as Record<string, unknown>)[key];
  Object.assign(env, next);
  for (const key of VARIABLES) {
    if (OWN.has(key)) continue;
    if (vars[key] === undefined) delete process.env[key];
    else process.env[key] = vars[key];
  }
}

/**
 * One request as the front hands it on: the client address recorded (`ip` overrides the loopback socket), then the
 * route handler. `input` may be a path or a URL (a link from an email): only its path and query are used.
 */
export async function dispatch(input: string | URL, init: RequestInit = {}, ip = "127.0.0.1"): Promise<Response> {
  const url = new URL(input, SERVICE_URL);
  const request = new Request(new URL(url.pathname + url.search, SERVICE_URL), init);
  request.headers.set(
    "x-watch-client-ip",
    clientAddress(ip, request.headers.get("x-forwarded-for") ?? undefined, env.TRUST_PROXY),
  );
  return handleRoute(request);
}

/** Routes this process's `fetch` calls to SERVICE_URL into `dispatch`; everything else (the stubs) goes out as usual. */
function interceptFetch() {
  const original = globalThis.fetch;
  globalThis.fetch = (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    return new URL(request.url).origin === SERVICE_URL ? dispatch(request.url, request) : original(request);
  };
  return () => void (globalThis.fetch = original);
}

/**
 * A first start in this process, then a clean stop: the database created and migrated, the engine's tables made, the
 * daily retention job armed. What each test database and test server is copied from (tests/template-setup.ts).
 */
export async function firstStart(): Promise<{ dataDir: string; databaseUrl?: string }> {
  const where = { dataDir: freshDataDir(), databaseUrl: await freshDatabaseUrl() };
  configure({ DATA_DIR: where.dataDir, DATABASE_URL: where.databaseUrl });
  (globalThis as { __watchFront?: boolean }).__watchFront = true;
  await startServices();
  await stopServices();
  return where;
}

export function withService(vars: Vars | ((stubs: Stubs) => Vars) = {}) {
  let stubs: Stubs | undefined;
  let base: Vars = {};
  let restoreFetch: (() => void) | undefined;

  beforeAll(async () => {
    stubs = await startStubs();
    base = {
      ...stubs.clerkEnv(),
      ...stubs.servicesEnv(),
      APP_URL: SERVICE_URL,
      ...(typeof vars === "function" ? vars(stubs) : vars),
      DATA_DIR: freshDataDir(),
      DATABASE_URL: await freshDatabaseUrl(),
    };
    configure(base);
    // The lifecycle refuses to start without the front (scripts/start.mjs); here `dispatch` plays its part.
    (globalThis as { __watchFront?: boolean }).__watchFront = true;
    await startServices();
    restoreFetch = interceptFetch();
  });

  afterAll(async () => {
    restoreFetch?.();
    await stopServices();
    await stubs?.close();
  });

  const client = apiClient(dispatch, async () => app.stubs.clerk.keys);

  const app = {
    ...client,
    /** The stubs of this file's service (started before its first test). */
    get stubs(): Stubs {
      if (!stubs) throw new Error("withService(): the stubs start in beforeAll; use them inside tests or hooks");
      return stubs;
    },
    /** The service's address: `fetch` to it (or to a path, with `app.fetch`) reaches the service in this process. */
    url: SERVICE_URL,
    /** A request to a path or URL of the service (a link from an email), answered in-process. */
    fetch: (input: string | URL, init?: RequestInit) => dispatch(input, init),
    /** One request from another client address (per-IP limits count per address). */
    from: (ip: string) =>
      apiClient(
        (path, init) => dispatch(path, init, ip),
        async () => app.stubs.clerk.keys,
      ).call,
    /** The dashboard's tRPC routers as `auth` (a session token or API key; none: anonymous or SERVICE_NOAUTH). */
    trpc: (auth?: string) => {
      const headers = new Headers({ "x-watch-client-ip": "127.0.0.1" });
      if (auth) headers.set("authorization", `Bearer ${auth}`);
      return appRouter.createCaller(createContext({ headers, via: "trpc" }));
    },
    /**
     * Rate limits on a clock of the test's own, from fresh counts: every request counts in one window (however slow
     * the machine) until `nextWindow()`; `release()` goes back to the real clock.
     */
    freezeRateLimits: () => {
      const g = globalThis as { __watchRateLimiter?: RateLimiter };
      let now = Date.now();
      g.__watchRateLimiter = memoryLimiter(() => now);
      return {
        /** The limits' clock (a reset is in its future, not necessarily in the wall clock's: it does not move). */
        now: () => now,
        nextWindow: () => void (now += env.RATE_LIMIT_WINDOW_MS),
        release: () => void (g.__watchRateLimiter = undefined),
      };
    },
    /** Changes variables from now on (what a restart with other variables would do), over this file's own. */
    setEnv: (changes: Vars) => configure({ ...base, ...changes }),
    /** The service's database (Prisma), for what no endpoint shows. */
    db,
  };
  return app;
}

export type App = ReturnType<typeof withService>;
