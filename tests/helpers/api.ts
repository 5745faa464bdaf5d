/** Helpers for black-box HTTP tests against the server started in tests/global-setup.ts (`base`: another server). */
import { importPKCS8 } from "jose";
import { inject } from "vitest";
import type { ClerkKeys } from "./clerk";
import { apiClient, type CallOptions, type Res } from "./client";
import { remoteStubs } from "./stubs";

export { uniqueId, type Res, type TestUser } from "./client";

export const server = () => inject("server");

/** The stubs behind the shared server (they run in the global setup's process). */
export const sharedStubs = () => remoteStubs(server().stubs);

let keys: Promise<ClerkKeys> | undefined;
export function testClerkKeys(): Promise<ClerkKeys> {
  return (keys ??= importPKCS8(server().clerkPrivatePem, "RS256", { extractable: true }).then((privateKey) => ({
    privateKey,
    publicPem: server().clerkPublicPem,
  })));
}

/**
 * This file's own client address on the shared server (a loopback one, so SERVICE_NOAUTH still applies): the server
 * trusts one proxy (TRUST_PROXY=1), so files running side by side never share a per-IP bucket. A request that names
 * its own X-Forwarded-For keeps it.
 */
const fileAddress = `127.${1 + Math.floor(Math.random() * 254)}.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;

const shared = apiClient((path, init) => {
  const headers = new Headers(init.headers);
  if (!headers.has("x-forwarded-for")) headers.set("x-forwarded-for", fileAddress);
  return fetch(server().url + path, { ...init, headers });
}, testClerkKeys);
const clients = new Map<string, ReturnType<typeof apiClient>["call"]>();

/** fetch against the test server (or the one at `base`); `auth` is a bearer token (API key or JWT). */
export function call<T = any>(
  method: string,
  path: string,
  opts: CallOptions & { base?: string } = {},
): Promise<Res<T>> {
  if (!opts.base) return shared.call(method, path, opts);
  const base = opts.base;
  let other = clients.get(base);
  if (!other) clients.set(base, (other = apiClient((p, init) => fetch(base + p, init), testClerkKeys).call));
  return other(method, path, opts);
}

export const { newUser, newApiKeyUser, createTask } = shared;
