/**
 * Keys the service makes for itself: generated on first use, stored in the database so every replica signs and
 * checks with the same key, cached in the process afterwards.
 */
import { randomBytes } from "node:crypto";
import { sql } from "./db/sql";
import { forgetOnStop } from "./start-state";

const cached = new Map<string, Promise<Buffer>>();
forgetOnStop(() => cached.clear());

export function serviceKey(name: string): Promise<Buffer> {
  let key = cached.get(name);
  if (!key) {
    key = (async () => {
      // Insert-if-absent, then read: two replicas starting at once end up with the one key that was stored first.
      await sql(`INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [
        name,
        randomBytes(32).toString("base64"),
      ]);
      const [row] = await sql<{ value: string }>(`SELECT value FROM service_secrets WHERE name = $1`, [name]);
      return Buffer.from(row!.value, "base64");
    })();
    key.catch(() => cached.delete(name));
    cached.set(name, key);
  }
  return key;
}
