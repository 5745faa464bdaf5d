import { z } from "zod";
import { text } from "../../../lib/text";
import {
  rotateWebhookSecret,
  setUsername,
  usernameAvailability,
  UserSchema,
  userView,
  webhookSecret,
} from "../../users/service";
import { SettingsInput, updateSettings } from "../../users/settings";
import { authedProcedure, router } from "../trpc";

const Secret = z.object({
  secret: z.string().meta({ description: "Standard Webhooks signing secret (whsec_…)" }),
  previous_expires_at: z.iso.datetime({ offset: true }).nullable().meta({
    description: "Until then the previous secret also signs every delivery; null when no rotation overlap is running",
  }),
});

export const usersRouter = router({
  settings: authedProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/api/v1/users/me/settings",
        tags: ["users"],
        summary: "Your email settings: time zone, quiet hours (email waits until they end), daily digest",
      },
    })
    .input(SettingsInput)
    .output(UserSchema)
    .mutation(async ({ ctx, input }) => userView(await updateSettings(ctx.user, input))),

  setUsername: authedProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/api/v1/users/me/username",
        tags: ["users"],
        summary: "Set your username (once)",
        errorResponses: { 400: "Invalid username, or already set", 409: "Username already taken" },
      },
    })
    .input(z.object({ username: text().max(100) }).strict())
    .output(UserSchema)
    .mutation(({ ctx, input }) => setUsername(ctx.user, input.username)),

  usernameAvailable: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/users/username/available",
        tags: ["users"],
        summary: "Check a username",
      },
    })
    .input(z.object({ username: text().max(100) }))
    .output(z.object({ available: z.boolean(), reason: z.string().nullable() }))
    .query(({ input }) => usernameAvailability(input.username)),

  webhookSecret: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/webhooks/secret",
        tags: ["notifications"],
        summary: "Your webhook signing secret",
      },
    })
    .input(z.void())
    .output(Secret)
    .query(({ ctx }) => webhookSecret(ctx.user)),

  rotateWebhookSecret: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/webhooks/secret/rotate",
        tags: ["notifications"],
        summary: "Rotate your webhook signing secret; the old one keeps signing for overlap_hours",
      },
    })
    .input(z.object({ overlap_hours: z.number().min(0).max(72).default(24) }).strict())
    .output(Secret)
    .mutation(({ ctx, input }) => rotateWebhookSecret(ctx.user, input.overlap_hours)),
});
