import { z } from "zod";
import { authedProcedure, router } from "../trpc";
import {
  CreatedTaskSchema,
  CreateTaskInput,
  ExecutionSchema,
  ExecutionStatusSchema,
  FindingKey,
  FindingPaging,
  FindingSchema,
  GateSchema,
  Id,
  ListTasksInput,
  Name,
  PreviewInput,
  SourceSchema,
  NotificationTypeSchema,
  Paging,
  TaskSchema,
  TestSendSchema,
  TotalCount,
  UpdateTaskInput,
} from "../../tasks/schemas";
import {
  createTask,
  deleteTask,
  forkTask,
  getTask,
  listTasks,
  keepWatching,
  seeTask,
  setVisibility,
  updateTask,
} from "../../tasks/service";
import { executeTask, listExecutions, listMetExecutions } from "../../tasks/executions";
import { listFindings, sendHeldFinding } from "../../tasks/findings";
import { listHistory } from "../../tasks/history";
import { previewTask } from "../../tasks/preview";
import { sendTestNotification } from "../../notify";

const tags = ["tasks"];
const ById = z.object({ id: Id });

export const tasksRouter = router({
  create: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/tasks",
        tags,
        summary: "Create a watch",
        errorResponses: {
          400: "Invalid notification config",
          403: "Active task limit reached, or Watch limit reached (MAX_WATCHES_PER_ACCOUNT)",
        },
      },
    })
    .input(CreateTaskInput)
    .output(CreatedTaskSchema)
    .mutation(({ ctx, input }) => createTask(ctx.user, input)),

  preview: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/tasks/preview",
        tags,
        summary: "What the agent would answer now for this query (saves nothing; counts one run)",
        errorResponses: {
          403: "Monthly run budget reached",
          502: "Model provider error",
          503: "No model configured",
        },
      },
      rateLimit: "preview",
    })
    .input(PreviewInput)
    .output(
      z.object({
        condition_met: z.boolean(),
        answer: z.string(),
        evidence: z.string(),
        confidence: z.number(),
        sources: z.array(SourceSchema),
        next_run: z.iso.datetime({ offset: true }),
        next_run_reason: z.string(),
        gate: GateSchema.nullable(),
        model: z.string(),
        usage: z.object({ input_tokens: z.number().int(), output_tokens: z.number().int() }),
        duration_ms: z.number().int(),
      }),
    )
    .mutation(({ ctx, input }) => previewTask(ctx.user, input)),

  list: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/tasks",
        tags,
        summary:
          "List your watches (newest first, or sort=attention, updated, name), filtered by state and words: all of them, or a page with limit and offset",
        responseHeaders: z.object({
          "X-Total-Count": z.string().max(20).meta({ description: "How many of your watches match (all pages)" }),
        }),
      },
    })
    .input(ListTasksInput)
    .output(z.array(TaskSchema))
    .query(async ({ ctx, input }) => {
      const { tasks, total } = await listTasks(ctx.user, input);
      ctx.res.headers["X-Total-Count"] = String(total);
      return tasks;
    }),

  get: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/tasks/{id}",
        tags,
        summary: "Get a watch",
        errorResponses: { 404: "Task not found" },
      },
    })
    .input(ById)
    .output(TaskSchema)
    .query(({ ctx, input }) => getTask(ctx.user, input.id)),

  seen: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/tasks/{id}/seen",
        tags,
        summary: "Mark a watch seen, as opening its page does: its findings so far are no longer `unseen`",
        errorResponses: { 404: "Task not found" },
      },
      successStatus: 204,
    })
    .input(ById)
    .output(z.void())
    .mutation(({ ctx, input }) => seeTask(ctx.user, input.id)),

  keepWatching: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/tasks/{id}/keep-watching",
        tags,
        summary:
          'Answer "stop watching, or keep watching for changes?" with keep watching, for the standing finding: `answered` is true until a new finding',
        errorResponses: { 404: "Task not found" },
      },
      successStatus: 204,
    })
    .input(ById)
    .output(z.void())
    .mutation(({ ctx, input }) => keepWatching(ctx.user, input.id)),

  update: authedProcedure
    .meta({
      openapi: {
        method: "PUT",
        path: "/api/v1/tasks/{id}",
        tags,
        summary: "Update a watch (partial)",
        errorResponses: {
          400: "Invalid state transition or notification config",
          403: "Active task limit reached (resuming a watch)",
          404: "Task not found",
          500: "Failed to change task state; the update was rolled back",
        },
      },
    })
    .input(UpdateTaskInput)
    .output(TaskSchema)
    .mutation(({ ctx, input }) => updateTask(ctx.user, input)),

  delete: authedProcedure
    .meta({
      openapi: {
        method: "DELETE",
        path: "/api/v1/tasks/{id}",
        tags,
        summary: "Delete a watch",
        errorResponses: { 404: "Task not found" },
      },
      successStatus: 204,
    })
    .input(ById)
    .output(z.void())
    .mutation(({ ctx, input }) => deleteTask(ctx.user, input.id)),

  execute: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/tasks/{id}/execute",
        tags,
        summary: "Run a watch now",
        errorResponses: {
          403: "Monthly run budget reached",
          404: "Task not found",
          409: "Task is already running or pending",
        },
      },
      query: ["force"],
    })
    .input(ById.extend({ force: z.union([z.boolean(), z.enum(["true", "false"])]).optional() }))
    .output(ExecutionSchema)
    .mutation(({ ctx, input }) => executeTask(ctx.user, input.id, input.force === true || input.force === "true")),

  executions: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/tasks/{id}/executions",
        tags,
        summary: "A watch's executions, newest first",
        errorResponses: { 404: "Task not found" },
      },
    })
    .input(ById.extend({ ...Paging, status: ExecutionStatusSchema.optional() }))
    .output(z.array(ExecutionSchema))
    .query(({ ctx, input }) => listExecutions(ctx.user, input.id, input)),

  metExecutions: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/tasks/{id}/notifications",
        tags,
        summary: "Executions where the condition was met (for findings grouped, see …/findings)",
        errorResponses: { 404: "Task not found" },
      },
    })
    .input(ById.extend(Paging))
    .output(z.array(ExecutionSchema))
    .query(({ ctx, input }) => listMetExecutions(ctx.user, input.id, input)),

  findings: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/tasks/{id}/findings",
        tags,
        summary:
          "A watch's findings, newest first: one per distinct thing found, with its confirmations; total in X-Total-Count",
        errorResponses: { 404: "Task not found" },
        responseHeaders: TotalCount,
      },
    })
    .input(ById.extend(FindingPaging))
    .output(z.array(FindingSchema))
    .query(async ({ ctx, input }) => {
      const { findings, total } = await listFindings(ctx.user, input.id, input);
      ctx.res.headers["X-Total-Count"] = String(total);
      return findings;
    }),

  sendFinding: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/tasks/{id}/findings/{key}/send",
        tags,
        summary:
          "Send a held finding anyway: it is notified as a run that cleared the watch's bounds would notify it (the " +
          "watch's channels and followers), and public like any notified finding; answers the finding",
        errorResponses: {
          404: "Task not found, or Finding not found",
          409: "The finding is not held (sent already, or retracted)",
        },
      },
      successStatus: 202,
    })
    .input(ById.extend({ key: FindingKey }))
    .output(FindingSchema)
    .mutation(({ ctx, input }) => sendHeldFinding(ctx.user, input.id, input.key)),

  setVisibility: authedProcedure
    .meta({
      openapi: {
        method: "PATCH",
        path: "/api/v1/tasks/{id}/visibility",
        tags,
        summary: "Make a watch public or private",
        errorResponses: { 400: "A username is required first", 404: "Task not found" },
      },
    })
    .input(ById.extend({ is_public: z.boolean() }).strict())
    .output(z.object({ is_public: z.boolean() }))
    .mutation(({ ctx, input }) => setVisibility(ctx.user, input.id, input.is_public)),

  testNotification: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/tasks/{id}/notifications/test",
        tags,
        summary: "Send a test notification on one channel",
        errorResponses: { 400: "Channel not configured", 404: "Task not found" },
      },
    })
    .input(ById.extend({ type: NotificationTypeSchema }).strict())
    .output(TestSendSchema)
    .mutation(({ ctx, input }) => sendTestNotification(ctx.user, input.id, input.type)),

  history: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/tasks/{id}/history",
        tags,
        summary: "How the watch's definition changed, newest first",
        errorResponses: { 404: "Task not found" },
      },
    })
    .input(ById.extend(Paging))
    .output(
      z.array(
        z.object({
          at: z.iso.datetime({ offset: true }),
          changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
        }),
      ),
    )
    .query(({ ctx, input }) => listHistory(ctx.user, input.id, input)),

  fork: authedProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/tasks/{id}/fork",
        tags,
        summary: "Fork a public watch",
        errorResponses: { 403: "Watch limit reached (MAX_WATCHES_PER_ACCOUNT)", 404: "Task not found" },
      },
    })
    .input(ById.extend({ name: Name.optional() }).strict())
    .output(TaskSchema)
    .mutation(({ ctx, input }) => forkTask(ctx.user, input.id, input.name)),
});
