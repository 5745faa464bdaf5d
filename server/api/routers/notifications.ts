import { z } from "zod";
import { SEND_EVENTS } from "../../notify/events";
import { sendTestTo } from "../../notify";
import { listSends, redeliver } from "../../notify/sends";
import {
  Id,
  Name,
  NotificationInput,
  NotificationTypeSchema,
  Paging,
  SendRecordSchema,
  TestSendSchema,
} from "../../tasks/schemas";
import { authedProcedure, router } from "../trpc";

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
    .output(z.object({ sends: z.array(SendRecordSchema), total: z.number().int() }))
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
    .output(SendRecordSchema)
    .mutation(({ ctx, input }) => redeliver(ctx.user, input.id)),

  test: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/notifications/test",
        tags: ["notifications"],
        summary:
          "Send a test message to a channel config before saving it, validated as a save validates it; answers how the send went",
        errorResponses: { 400: "Invalid notification config", 404: "Task not found" },
      },
      rateLimit: "test-send",
    })
    .input(
      z
        .object({
          notification: NotificationInput,
          task_id: Id.optional().meta({
            description:
              "Your watch, or a public watch you follow: the message is about it, and a secret sent redacted (as reads show it) stands for the one stored on its channel of that type (yours, for a follow)",
          }),
          name: Name.optional().meta({
            description: "Without task_id: the watch's name as typed so far, for the message (default `New watch`)",
          }),
        })
        .strict(),
    )
    .output(TestSendSchema)
    .mutation(({ ctx, input }) => sendTestTo(ctx.user, input)),
});
