/** Helpers for black-box HTTP tests against the server started in tests/global-setup.ts. */
import { importPKCS8 } from "jose";
import { inject } from "vitest";
import { mintSessionToken, type ClerkKeys } from "./clerk";

export const server = () => inject("server");

let keys: Promise<ClerkKeys> | undefined;
export function testClerkKeys(): Promise<ClerkKeys> {
  return (keys ??= importPKCS8(server().clerkPrivatePem, "RS256", { extractable: true }).then((privateKey) => ({
    privateKey,
    publicPem: server().clerkPublicPem,
  })));
}

export type Res<T = any> = { status: number; headers: Headers; body: T; text: string };

/** fetch against the test server; `auth` is a bearer token (API key or JWT). */
export async function call<T = any>(
  method: string,
  path: string,
  opts: { auth?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; base?: string } = {},
): Promise<Res<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.auth) headers.authorization = `Bearer ${opts.auth}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch((opts.base ?? server().url) + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

let counter = 0;
export const uniqueId = (prefix = "user") =>
  `${prefix}_${Date.now().toString(36)}${(counter++).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

export type TestUser = { clerkId: string; token: string; id: string; email: string };

/**
 * A signed-in, synced dashboard user. `role`: "developer"/"admin" make the Clerk stub report that role.
 */
export async function newUser(role?: "developer" | "admin", opts: { username?: string } = {}): Promise<TestUser> {
  const clerkId = uniqueId(role === "developer" ? "user_dev" : role === "admin" ? "user_admin" : "user");
  const token = await mintSessionToken(await testClerkKeys(), clerkId);
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
export async function newApiKeyUser(): Promise<TestUser & { apiKey: string; keyId: string }> {
  const user = await newUser("developer");
  const r = await call("POST", "/auth/api-keys", { auth: user.token, body: { name: "test" } });
  if (r.status !== 200) throw new Error(`api key failed: ${r.status} ${r.text}`);
  return { ...user, apiKey: r.body.key, keyId: r.body.key_info.id };
}

export async function createTask(auth: string, body: Record<string, unknown> = {}) {
  const r = await call("POST", "/api/v1/tasks", { auth, body: { search_query: "Postgres 19 beta release", ...body } });
  if (r.status !== 200) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.body;
}
