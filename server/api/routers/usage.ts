import { z } from "zod";
import { usageByTask, usageOf } from "../../usage";
import { authedProcedure, router } from "../trpc";

const tags = ["usage"];

export const usageRouter = router({
  get: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/usage",
        tags,
        summary: "Your runs, tokens and active watches this month (UTC) against your limits",
      },
    })
    .input(z.void())
    .output(
      z.object({
        period_start: z.iso.datetime({ offset: true }),
        period_end: z.iso.datetime({ offset: true }),
        runs: z.number().int(),
        runs_limit: z.number().int(),
        input_tokens: z.number().int(),
        output_tokens: z.number().int(),
        active_tasks: z.number().int(),
        active_tasks_limit: z.number().int(),
      }),
    )
    .query(({ ctx }) => usageOf(ctx.user.id)),

  byTask: authedProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/usage/tasks",
        tags,
        summary: "Your watches that ran most this month, with their runs and tokens",
      },
    })
    .input(z.object({ limit: z.number().int().min(1).max(100).default(10) }))
    .output(
      z.array(
        z.object({
          task_id: z.guid(),
          name: z.string(),
          runs: z.number().int(),
          input_tokens: z.number().int(),
          output_tokens: z.number().int(),
        }),
      ),
    )
    .query(({ ctx, input }) => usageByTask(ctx.user.id, input.limit)),
});
