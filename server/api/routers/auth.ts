import { z } from "zod";
import { text } from "../../../lib/text";
import { Id } from "../../tasks/schemas";
import { ApiKeySchema, createApiKey, listApiKeys, revokeApiKey } from "../../auth/api-key-service";
import { syncUser } from "../../users/clerk-accounts";
import { markWelcomeSeen, userView, UserSchema } from "../../users/service";
import { authedProcedure, router, sessionProcedure } from "../trpc";

const tags = ["auth"];

export const authRouter = router({
  syncUser: sessionProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/sync-user",
        tags,
        summary: "Create or refresh your account from the identity provider",
        errorResponses: {
          404: "User not found at the identity provider",
          503: "Clerk client not initialized, or the identity provider is unavailable",
        },
      },
    })
    .input(z.void())
    .output(z.object({ user: UserSchema, created: z.boolean() }))
    .mutation(({ ctx }) => syncUser(ctx.caller as Parameters<typeof syncUser>[0])),

  me: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/auth/me",
        tags,
        summary: "Your account",
      },
    })
    .input(z.void())
    .output(UserSchema)
    .query(({ ctx }) => userView(ctx.user)),

  markWelcomeSeen: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/mark-welcome-seen",
        tags,
        summary: "Dismiss the welcome panel",
      },
    })
    .input(z.void())
    .output(z.object({ status: z.literal("success") }))
    .mutation(({ ctx }) => markWelcomeSeen(ctx.user)),

  createApiKey: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/auth/api-keys",
        tags,
        summary: "Create your API key (shown once)",
        errorResponses: {
          400: "An active key exists",
          403: "Role developer or admin required",
        },
      },
      rateLimit: "api-key-create",
    })
    .input(z.object({ name: text().trim().min(1).max(100) }).strict())
    .output(z.object({ key: z.string(), key_info: ApiKeySchema }))
    .mutation(({ ctx, input }) => createApiKey(ctx.user, input.name)),

  listApiKeys: authedProcedure
    .meta({ openapi: { method: "GET", path: "/auth/api-keys", tags, summary: "Your API keys" } })
    .input(z.void())
    .output(z.array(ApiKeySchema))
    .query(({ ctx }) => listApiKeys(ctx.user)),

  revokeApiKey: authedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/auth/api-keys/{id}",
        tags,
        summary: "Revoke an API key",
        errorResponses: { 404: "API key not found" },
      },
    })
    .input(z.object({ id: Id }))
    .output(z.object({ status: z.literal("revoked") }))
    .mutation(({ ctx, input }) => revokeApiKey(ctx.user, input.id)),
});
