import { z } from "zod";
import {
  CHECK_INBOX,
  confirmFollow,
  followAsUser,
  followByEmail,
  listFollows,
  unfollow,
  unsubscribe,
} from "../../follows/service";
import { Id, NotificationConfig, NotificationsInput, TaskSchema, Timestamp } from "../../tasks/schemas";
import { text } from "../../../lib/text";
import { authedProcedure, publicProcedure, router } from "../trpc";

const tags = ["follows"];
const Token = z.object({ token: text().min(1).max(300) }).strict();
const FollowSchema = z
  .object({ task_id: Id, notifications: z.array(NotificationConfig), created_at: Timestamp })
  .meta({ id: "Follow" });

export const followsRouter = router({
  byEmail: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/public/tasks/id/{id}/follow",
        tags,
        summary:
          "Follow a public watch by email (no account): a confirmation link is sent; the same answer whether or not the address already follows",
        errorResponses: { 404: "Task not found" },
      },
      successStatus: 202,
      rateLimit: "follow",
    })
    .input(z.object({ id: Id, email: z.email({ pattern: z.regexes.html5Email }).max(320) }).strict())
    .output(z.object({ message: z.literal(CHECK_INBOX) }))
    .mutation(({ input }) => followByEmail(input.id, input.email)),

  confirm: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/public/follows/confirm",
        tags,
        summary: "Confirm a follow by email (the button of the link's page)",
        errorResponses: { 400: "Invalid or expired token" },
      },
    })
    .input(Token)
    .output(z.object({ task_id: Id, email: z.string() }))
    .mutation(({ input }) => confirmFollow(input.token)),

  unsubscribe: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/public/follows/unsubscribe",
        tags,
        summary: "Stop following (the link in every follower's email)",
        errorResponses: { 400: "Invalid or expired token" },
      },
    })
    .input(Token)
    .output(z.object({ status: z.literal("unsubscribed"), task_id: Id.nullable() }))
    .mutation(({ input }) => unsubscribe(input.token)),

  follow: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/tasks/{id}/follow",
        tags,
        summary: "Follow a public watch with your own channels, or change them",
        errorResponses: { 400: "You own this task, or an invalid notification", 404: "Task not found" },
      },
      successStatus: 201,
      alsoAnswers: { 200: "You followed it already: your channels were replaced" },
    })
    .input(z.object({ id: Id, notifications: NotificationsInput }).strict())
    .output(FollowSchema)
    .mutation(async ({ ctx, input }) => {
      const { created, follow } = await followAsUser(ctx.user, input.id, input.notifications);
      if (!created) ctx.res.status = 200;
      return follow;
    }),

  unfollow: authedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/api/v1/tasks/{id}/follow",
        tags,
        summary: "Stop following a watch",
        errorResponses: { 404: "Task not found" },
      },
      successStatus: 204,
    })
    .input(z.object({ id: Id }))
    .output(z.void())
    .mutation(({ ctx, input }) => unfollow(ctx.user, input.id)),

  list: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/follows",
        tags,
        summary: "The watches you follow, newest first",
      },
    })
    .input(z.void())
    .output(z.array(FollowSchema.omit({ task_id: true }).extend({ task: TaskSchema })))
    .query(({ ctx }) => listFollows(ctx.user)),
});
