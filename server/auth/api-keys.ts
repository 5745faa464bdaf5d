/**
 * Personal API keys: `sk_` + 32 characters of [A-Za-z0-9]. Only a bcrypt hash is stored, next to a
 * non-secret lookup id (the first characters of the key) that finds the row with one indexed read.
 * A successful bcrypt check is cached briefly by SHA-256 of the key, so requests do not pay ~100 ms of
 * bcrypt each; `is_active` is re-read on every request, so a revocation takes effect at once everywhere.
 *
 * Wrong keys must not cost the service: compares run on worker threads (./bcrypt-pool), a lookup id that
 * collected a few failed (or still running) compares in a minute gets no more of them (a made-up key that
 * copies a real key's prefix is refused at once, while the real key, already verified, keeps working), and a
 * client address gets a budget of failed attempts per window (the "api-key-failure" bucket), then 429s
 * before any database read. The price: during such an attack a real key this process has not verified yet
 * is refused with the made-up ones until the window ends.
 */
import { createHash, randomInt } from "node:crypto";
import { db, type User } from "../db";
import { sql } from "../db/sql";
import { rateLimitedError, takeToken } from "../ratelimit";
import { bcryptCompare, bcryptHash } from "./bcrypt-pool";
import { log } from "../observability/log.mjs";
import { forgetOnStop } from "../start-state";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const KEY_PATTERN = /^sk_[A-Za-z0-9]{32}$/;
const LOOKUP_LENGTH = 8;
const BCRYPT_COST = 10;
const VERIFIED_TTL_MS = 5 * 60_000;
const REJECTED_TTL_MS = 60_000;
const CACHE_LIMIT = 10_000;
const LAST_USED_EVERY_MS = 60_000;
/** Failed or running compares one lookup id may collect per window before it gets no more. */
const LOOKUP_STRIKES = 5;
const LOOKUP_WINDOW_MS = 60_000;

export function generateApiKey() {
  let secret = "";
  for (let i = 0; i < 32; i++) secret += ALPHABET[randomInt(ALPHABET.length)];
  const key = `sk_${secret}`;
  return { key, lookupId: secret.slice(0, LOOKUP_LENGTH), keyPrefix: `sk_${secret.slice(0, LOOKUP_LENGTH)}...` };
}

export const hashApiKey = (key: string) => bcryptHash(key, BCRYPT_COST);

export const looksLikeApiKey = (token: string) => token.startsWith("sk_");

type CacheEntry = { keyId: string | null; until: number };
const g = globalThis as unknown as { __watchKeyCache?: Map<string, CacheEntry> };
const cache = (g.__watchKeyCache ??= new Map());
const pending = new Map<string, Promise<boolean>>();
forgetOnStop(() => {
  for (const m of [cache, pending, strikes, blocked]) m.clear();
});

function remember(digest: string, keyId: string | null, ttl: number) {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(digest, { keyId, until: Date.now() + ttl });
}

/** Per lookup id: compares that failed or are still running in the current window. */
const strikes = new Map<string, { count: number; until: number }>();

function struckOut(lookupId: string) {
  const s = strikes.get(lookupId);
  return !!s && s.until > Date.now() && s.count >= LOOKUP_STRIKES;
}

function strike(lookupId: string, delta: 1 | -1) {
  const now = Date.now();
  let s = strikes.get(lookupId);
  if (!s || s.until <= now) {
    if (delta < 0) return;
    if (strikes.size >= CACHE_LIMIT) for (const [k, v] of strikes) if (v.until <= now) strikes.delete(k);
    strikes.set(lookupId, (s = { count: 0, until: now + LOOKUP_WINDOW_MS }));
  }
  s.count = Math.max(0, s.count + delta);
}

/**
 * Single flight: a burst of requests with the same new key waits for one compare, not one each. Null when the
 * lookup id has struck out.
 */
function compareOnce(digest: string, key: string, hash: string, lookupId: string): Promise<boolean> | null {
  const running = pending.get(digest);
  if (running) return running;
  if (struckOut(lookupId)) return null;
  strike(lookupId, 1);
  const check = bcryptCompare(key, hash)
    .then((ok) => {
      if (ok) strike(lookupId, -1);
      return ok;
    })
    .finally(() => pending.delete(digest));
  pending.set(digest, check);
  return check;
}

/** Client addresses that spent their failed-attempt budget, until when: refused before any work. */
const blocked = new Map<string, { until: number; headers: Record<string, string> }>();

function refuseIfBlocked(clientIp: string) {
  const b = blocked.get(clientIp);
  if (!b) return;
  const retryAfter = Math.ceil((b.until - Date.now()) / 1000);
  if (retryAfter <= 0) return void blocked.delete(clientIp);
  throw rateLimitedError({ retryAfter, headers: { ...b.headers, "Retry-After": String(retryAfter) } });
}

/** Counts a failed attempt against the client's budget: null (a 401) while it lasts, then a 429. */
async function failed(clientIp: string): Promise<null> {
  refuseIfBlocked(clientIp);
  const verdict = await takeToken("api-key-failure", clientIp);
  if (verdict.ok) return null;
  const now = Date.now();
  if (blocked.size >= CACHE_LIMIT) for (const [k, v] of blocked) if (v.until <= now) blocked.delete(k);
  blocked.set(clientIp, { until: now + verdict.retryAfter * 1000, headers: verdict.headers });
  throw rateLimitedError(verdict);
}

type KeyWithOwner = User & { key_id: string; key_hash: string; key_active: boolean; key_last_used_at: Date | null };

/**
 * The active key's owner, or null when the key is malformed, unknown, revoked or wrong. Throws a 429 once
 * `clientIp` has spent its budget of failed attempts (a key verified before is not held up by that).
 */
export async function verifyApiKey(key: string, clientIp: string): Promise<User | null> {
  if (!KEY_PATTERN.test(key)) return failed(clientIp);
  const digest = createHash("sha256").update(key).digest("hex");
  const cached = cache.get(digest);
  const fresh = cached && cached.until > Date.now() ? cached : undefined;
  if (!fresh?.keyId) refuseIfBlocked(clientIp);
  if (fresh && fresh.keyId === null) return failed(clientIp);

  const lookupId = key.slice(3, 3 + LOOKUP_LENGTH);
  const [row] = await sql<KeyWithOwner>(
    `SELECT k.id AS key_id, k.key_hash, k.is_active AS key_active, k.last_used_at AS key_last_used_at, u.*
       FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.lookup_id = $1`,
    [lookupId],
  );
  if (!row) return failed(clientIp);
  const { key_id, key_hash, key_active, key_last_used_at, ...user } = row;
  if (!key_active || !user.is_active) return failed(clientIp);
  if (fresh?.keyId !== key_id) {
    const check = compareOnce(digest, key, key_hash, lookupId);
    if (!check || !(await check)) {
      if (check) remember(digest, null, REJECTED_TTL_MS);
      return failed(clientIp);
    }
    remember(digest, key_id, VERIFIED_TTL_MS);
  }
  if (!key_last_used_at || Date.now() - key_last_used_at.getTime() > LAST_USED_EVERY_MS) {
    db.apiKey
      .update({ where: { id: key_id }, data: { last_used_at: new Date() } })
      .catch((e: unknown) => log.error({ err: e }, "api key last_used_at update failed"));
  }
  return user;
}
