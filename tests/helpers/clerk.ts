/**
 * Clerk, offline: an RS256 key pair whose public half the server gets as CLERK_JWT_KEY, session tokens
 * minted with it, and a stub of the Clerk Backend API (GET /v1/users/:id) for POST /auth/sync-user.
 * Profiles are derived from the user id: ids containing `_dev` get role developer, `_admin` admin,
 * ids starting with `user_gone` answer 404; `POST /__test/users/:id` with a JSON object changes a profile
 * (what an edit in Clerk's dashboard would do).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from "jose";

export type ClerkKeys = { publicPem: string; privateKey: CryptoKey };

export async function clerkKeys(): Promise<ClerkKeys> {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
  return { publicPem: await exportSPKI(publicKey), privateKey };
}

/** The origin test tokens are issued for (`azp`); test servers accept it (CLERK_AUTHORIZED_PARTIES). */
export const TEST_AUTHORIZED_PARTY = "http://watch.test";

export async function mintSessionToken(
  keys: ClerkKeys,
  userId: string,
  opts: { expiresIn?: number; issuedAgo?: number; sessionId?: string; azp?: string } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  const iat = now - (opts.issuedAgo ?? 5);
  return new SignJWT({ sid: opts.sessionId ?? `sess_${userId}`, azp: opts.azp ?? TEST_AUTHORIZED_PARTY })
    .setProtectedHeader({ alg: "RS256", kid: "ins_test" })
    .setSubject(userId)
    .setIssuer("https://example.clerk.accounts.dev")
    .setIssuedAt(iat)
    .setNotBefore(iat)
    .setExpirationTime(iat + (opts.expiresIn ?? 600))
    .sign(keys.privateKey);
}

export function profileFor(userId: string) {
  const role = userId.includes("_admin") ? "admin" : userId.includes("_dev") ? "developer" : undefined;
  return {
    id: userId,
    object: "user",
    first_name: `First ${userId}`,
    last_name: null,
    username: null,
    primary_email_address_id: `idn_${userId}`,
    email_addresses: [
      {
        id: `idn_${userId}`,
        object: "email_address",
        email_address: `${userId}@example.com`,
        verification: null,
        linked_to: [],
      },
    ],
    phone_numbers: [],
    web3_wallets: [],
    external_accounts: [],
    public_metadata: role ? { role } : {},
    private_metadata: {},
    unsafe_metadata: {},
    created_at: Date.now(),
    updated_at: Date.now(),
  };
}

export async function startClerkStub() {
  const changed = new Map<string, Record<string, unknown>>();
  const server = http.createServer(async (req, res) => {
    res.setHeader("content-type", "application/json");
    const edit = /^\/__test\/users\/([^/?]+)/.exec(req.url ?? "");
    if (edit && req.method === "POST") {
      let body = "";
      for await (const chunk of req) body += chunk;
      const id = decodeURIComponent(edit[1]!);
      changed.set(id, { ...changed.get(id), ...JSON.parse(body) });
      return void res.writeHead(200).end("{}");
    }
    const match = /^\/v1\/users\/([^/?]+)/.exec(req.url ?? "");
    if (!match)
      return void res
        .writeHead(404)
        .end(JSON.stringify({ errors: [{ code: "resource_not_found", message: "not found" }] }));
    const id = decodeURIComponent(match[1]!);
    if (id.startsWith("user_gone"))
      return void res
        .writeHead(404)
        .end(JSON.stringify({ errors: [{ code: "resource_not_found", message: "not found" }] }));
    res.writeHead(200).end(JSON.stringify({ ...profileFor(id), ...changed.get(id) }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
