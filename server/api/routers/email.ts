import { z } from "zod";
import { apiError } from "../errors";
import { verifyEmailToken } from "../../notify";
import { pauseFromLink } from "../../tasks/service";
import { publicProcedure, router, syncParsed } from "../trpc";

const tags = ["notifications"];

/** The links in notification emails. */
export const emailRouter = router({
  verify: publicProcedure
    .meta({ openapi: { method: "GET", path: "/api/v1/email/verify", tags, summary: "Confirm an address for email notifications", errorResponses: { 404: "Unknown verification link" } } })
    .input(z.object({ token: z.string().min(1).max(200) }))
    .output(syncParsed(z.object({ verified: z.literal(true), email: z.string() })))
    .query(async ({ input }) => {
      const verified = await verifyEmailToken(input.token);
      if (!verified) throw apiError(404, "Verification link not found");
      return verified;
    }),

  pause: publicProcedure
    .meta({ openapi: { method: "GET", path: "/api/v1/email/pause", tags, summary: "Pause a watch from its notification email", errorResponses: { 404: "Task not found" } } })
    .input(z.object({ task: z.guid(), token: z.string().min(1).max(200) }))
    .output(syncParsed(z.object({ status: z.literal("paused") })))
    .query(({ input }) => pauseFromLink(input.task, input.token)),
});
