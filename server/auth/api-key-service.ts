/** API key management: one active key per developer or admin user, shown once, revocable. */
import { z } from "zod";
import { DomainError } from "../errors";
import { lockAccount, prismaQuery } from "../db/sql";
import { db, type ApiKey, type User } from "../db";
import { generateApiKey, hashApiKey } from "./api-keys";

export const ApiKeySchema = z
  .object({
    id: z.guid(),
    user_id: z.guid(),
    key_prefix: z.string(),
    name: z.string(),
    created_at: z.iso.datetime({ offset: true }),
    last_used_at: z.iso.datetime({ offset: true }).nullable(),
    is_active: z.boolean(),
  })
  .meta({ id: "ApiKey" });

const view = (k: ApiKey): z.infer<typeof ApiKeySchema> => ({
  id: k.id,
  user_id: k.user_id,
  key_prefix: k.key_prefix,
  name: k.name,
  created_at: k.created_at.toISOString(),
  last_used_at: k.last_used_at?.toISOString() ?? null,
  is_active: k.is_active,
});

const KEY_ROLES = new Set(["developer", "admin"]);
export const canCreateApiKeys = (user: Pick<User, "role">) => !!user.role && KEY_ROLES.has(user.role);

export async function createApiKey(user: User, name: string) {
  if (!canCreateApiKeys(user))
    throw new DomainError(
      "forbidden",
      "API keys are available to developer and admin accounts. Ask an administrator for the developer role.",
    );
  const { key, lookupId, keyPrefix } = generateApiKey();
  const key_hash = await hashApiKey(key);
  const created = await db.$transaction(async (tx) => {
    // Serialise key creation per user so "one active key" holds under concurrent requests.
    await lockAccount(prismaQuery(tx), user.id);
    const active = await tx.apiKey.count({ where: { user_id: user.id, is_active: true } });
    if (active)
      throw new DomainError("invalid", "An active API key already exists. Revoke it before creating a new one.");
    return tx.apiKey.create({ data: { user_id: user.id, lookup_id: lookupId, key_prefix: keyPrefix, key_hash, name } });
  });
  return { key, key_info: view(created) };
}

export async function listApiKeys(user: User) {
  const rows = await db.apiKey.findMany({ where: { user_id: user.id }, orderBy: { created_at: "desc" } });
  return rows.map(view);
}

export async function revokeApiKey(user: User, id: string) {
  const { count } = await db.apiKey.updateMany({
    where: { id, user_id: user.id, is_active: true },
    data: { is_active: false, revoked_at: new Date() },
  });
  if (!count) {
    const exists = await db.apiKey.findFirst({ where: { id, user_id: user.id }, select: { id: true } });
    if (!exists) throw new DomainError("not_found", "API key not found");
  }
  return { status: "revoked" as const };
}
