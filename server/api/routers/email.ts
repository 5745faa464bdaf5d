import { z } from "zod";
import { text } from "../../../lib/text";
import { Id } from "../../tasks/schemas";
import { DomainError } from "../../errors";
import { verifyEmailToken } from "../../notify";
import { pauseFromLink } from "../../tasks/service";
import { publicProcedure, router } from "../trpc";

const tags = ["notifications"];

/** The links in notification emails. */
export const emailRouter = router({
  verify: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/email/verify",
        tags,
        summary: "Confirm an address for email notifications (the button of the link's page)",
        errorResponses: { 400: "Invalid or expired token" },
      },
    })
    .input(z.object({ token: text().min(1).max(200) }).strict())
    .output(z.object({ verified: z.literal(true), email: z.string() }))
    .mutation(async ({ input }) => {
      const verified = await verifyEmailToken(input.token);
      if (!verified) throw new DomainError("invalid", "Invalid or expired token");
      return verified;
    }),

  pause: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/email/pause",
        tags,
        summary: "Pause a watch from its notification email (the button of the link's page)",
        errorResponses: { 400: "Invalid or expired link", 404: "Task not found" },
      },
    })
    .input(z.object({ task: Id, token: text().min(1).max(200) }).strict())
    .output(z.object({ status: z.literal("paused") }))
    .mutation(({ input }) => pauseFromLink(input.task, input.token)),
});
