import { z } from "zod";
import { SEND_EVENTS } from "../../notify/events";
import { listSends, redeliver } from "../../notify/sends";
import { Id, NotificationTypeSchema, Paging, SendRecordSchema } from "../../tasks/schemas";
import { authedProcedure, router, syncParsed } from "../trpc";

export const notificationsRouter = router({
  sends: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/notifications/sends",
        tags: ["notifications"],
        summary: "Delivery history",
      },
    })
    .input(
      z.object({
        notification_type: NotificationTypeSchema.optional(),
        task_id: Id.optional(),
        event: z.enum(SEND_EVENTS).optional(),
        ...Paging,
      }),
    )
    .output(syncParsed(z.object({ sends: z.array(SendRecordSchema), total: z.number().int() })))
    .query(({ ctx, input }) => listSends(ctx.user, input)),

  redeliver: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/notifications/sends/{id}/redeliver",
        tags: ["notifications"],
        summary:
          "Send a run's notice again now on the send's channel, any type (a webhook with the same webhook-id); answers the new attempt's record",
        errorResponses: {
          400: "Only deliveries of a run can be redelivered, not test sends; or the channel is no longer configured",
          404: "Send not found",
          409: "Being redelivered already",
        },
      },
      successStatus: 202,
    })
    .input(z.object({ id: Id }))
    .output(syncParsed(SendRecordSchema))
    .mutation(({ ctx, input }) => redeliver(ctx.user, input.id)),
});
