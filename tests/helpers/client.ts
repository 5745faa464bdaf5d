/**
 * What tests do through the API, for either tier: `call` (one request, the answer parsed), signed-in users, API keys,
 * watches. Bound to the shared black-box server in ./api.ts, to the in-process service in ./service.ts.
 */
import { mintSessionToken, type ClerkKeys } from "./clerk";

export type Res<T = any> = { status: number; headers: Headers; body: T; text: string };
export type CallOptions = {
  /** A bearer token (API key or session token). */
  auth?: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is (set the content-type in `headers`). */
  rawBody?: string;
  headers?: Record<string, string>;
};

export type TestUser = { clerkId: string; token: string; id: string; email: string };

let counter = 0;
export const uniqueId = (prefix = "user") =>
  `${prefix}_${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export function apiClient(
  send: (path: string, init: RequestInit) => Promise<Response>,
  clerkKeys: () => Promise<ClerkKeys>,
) {
  async function call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<Res<T>> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.auth) headers.authorization = `Bearer ${opts.auth}`;
    let body: string | undefined = opts.rawBody;
    if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers["content-type"] ??= "application/json";
    }
    const res = await send(path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  /** A signed-in, synced dashboard user. `role`: "developer"/"admin" make the Clerk stub report that role. */
  async function newUser(role?: "developer" | "admin", opts: { username?: string } = {}): Promise<TestUser> {
    const clerkId = uniqueId(role === "developer" ? "user_dev" : role === "admin" ? "user_admin" : "user");
    const token = await mintSessionToken(await clerkKeys(), clerkId);
    const synced = await call("POST", "/auth/sync-user", { auth: token });
    if (synced.status !== 200) throw new Error(`sync-user failed: ${synced.status} ${synced.text}`);
    const user: TestUser = { clerkId, token, id: synced.body.user.id, email: synced.body.user.email };
    if (opts.username) {
      const r = await call("PATCH", "/api/v1/users/me/username", { auth: token, body: { username: opts.username } });
      if (r.status !== 200) throw new Error(`username failed: ${r.status} ${r.text}`);
    }
    return user;
  }

  /** A developer user with an API key. */
  async function newApiKeyUser(): Promise<TestUser & { apiKey: string; keyId: string }> {
    const user = await newUser("developer");
    const r = await call("POST", "/auth/api-keys", { auth: user.token, body: { name: "test" } });
    if (r.status !== 200) throw new Error(`api key failed: ${r.status} ${r.text}`);
    return { ...user, apiKey: r.body.key, keyId: r.body.key_info.id };
  }

  /** A watch of the caller's (`auth` undefined: the SERVICE_NOAUTH test user); defaults to an active one. */
  async function createTask(auth: string | undefined, body: Record<string, unknown> = {}) {
    const r = await call("POST", "/api/v1/tasks", {
      auth,
      body: { search_query: "Postgres 19 beta release", ...body },
    });
    if (r.status !== 200) throw new Error(`create failed: ${r.status} ${r.text}`);
    return r.body;
  }

  return { call, newUser, newApiKeyUser, createTask };
}
