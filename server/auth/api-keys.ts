/**
 * Personal API keys: `sk_` + 32 characters of [A-Za-z0-9]. Only a bcrypt hash is stored, next to a
 * non-secret lookup id (the first characters of the key) that finds the row with one indexed read.
 * A successful bcrypt check is cached briefly by SHA-256 of the key, so requests do not pay ~100 ms of
 * bcrypt each; `is_active` is re-read on every request, so a revocation takes effect at once everywhere.
 */
import { createHash, randomInt } from "node:crypto";
import bcrypt from "bcryptjs";
import { db, type User } from "../db";
import { sql } from "../db/sql";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const KEY_PATTERN = /^sk_[A-Za-z0-9]{32}$/;
const LOOKUP_LENGTH = 8;
const BCRYPT_COST = 10;
const VERIFIED_TTL_MS = 5 * 60_000;
const REJECTED_TTL_MS = 60_000;
const CACHE_LIMIT = 10_000;
const LAST_USED_EVERY_MS = 60_000;

export function generateApiKey() {
  let secret = "";
  for (let i = 0; i < 32; i++) secret += ALPHABET[randomInt(ALPHABET.length)];
  const key = `sk_${secret}`;
  return { key, lookupId: secret.slice(0, LOOKUP_LENGTH), keyPrefix: `sk_${secret.slice(0, LOOKUP_LENGTH)}...` };
}

export const hashApiKey = (key: string) => bcrypt.hash(key, BCRYPT_COST);

export const looksLikeApiKey = (token: string) => token.startsWith("sk_");

type CacheEntry = { keyId: string | null; until: number };
const g = globalThis as unknown as { __watchKeyCache?: Map<string, CacheEntry> };
const cache = (g.__watchKeyCache ??= new Map());
const pending = new Map<string, Promise<boolean>>();

function remember(digest: string, keyId: string | null, ttl: number) {
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(digest, { keyId, until: Date.now() + ttl });
}

type KeyWithOwner = User & { key_id: string; key_hash: string; key_active: boolean; key_last_used_at: Date | null };

/** The active key's owner, or null when the key is malformed, unknown, revoked or wrong. */
export async function verifyApiKey(key: string): Promise<User | null> {
  if (!KEY_PATTERN.test(key)) return null;
  const digest = createHash("sha256").update(key).digest("hex");
  const cached = cache.get(digest);
  const fresh = cached && cached.until > Date.now() ? cached : undefined;
  if (fresh && fresh.keyId === null) return null;

  const [row] = await sql<KeyWithOwner>(
    `SELECT k.id AS key_id, k.key_hash, k.is_active AS key_active, k.last_used_at AS key_last_used_at, u.*
       FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.lookup_id = $1`,
    [key.slice(3, 3 + LOOKUP_LENGTH)],
  );
  if (!row) return null;
  const { key_id, key_hash, key_active, key_last_used_at, ...user } = row;
  if (!key_active || !user.is_active) return null;
  if (fresh?.keyId !== key_id) {
    // Single flight: a burst of requests with the same new key waits for one bcrypt, not one each.
    let check = pending.get(digest);
    if (!check) {
      check = bcrypt.compare(key, key_hash).finally(() => pending.delete(digest));
      pending.set(digest, check);
    }
    if (!(await check)) {
      remember(digest, null, REJECTED_TTL_MS);
      return null;
    }
    remember(digest, key_id, VERIFIED_TTL_MS);
  }
  if (!key_last_used_at || Date.now() - key_last_used_at.getTime() > LAST_USED_EVERY_MS) {
    db.apiKey
      .update({ where: { id: key_id }, data: { last_used_at: new Date() } })
      .catch((e: unknown) => console.error("api key last_used_at update failed", e));
  }
  return user;
}
