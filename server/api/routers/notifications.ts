import { z } from "zod";
import { listSends } from "../../notify/sends";
import { NotificationTypeSchema, Paging, SendRecordSchema } from "../../tasks/schemas";
import { authedProcedure, router, syncParsed } from "../trpc";

export const notificationsRouter = router({
  sends: authedProcedure
    .meta({
      openapi: { method: "GET", path: "/api/v1/notifications/sends", tags: ["notifications"], summary: "Delivery history", protect: true, errorResponses: {} },
    })
    .input(z.object({ notification_type: NotificationTypeSchema.optional(), task_id: z.guid().optional(), ...Paging }))
    .output(syncParsed(z.object({ sends: z.array(SendRecordSchema), total: z.number().int() })))
    .query(({ ctx, input }) => listSends(ctx.user, input)),
});
