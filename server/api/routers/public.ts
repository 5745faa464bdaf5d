import { z } from "zod";
import { authenticate } from "../../auth";
import { database } from "../../db";
import { scheduler } from "../../scheduler";
import { Id, TaskSchema } from "../../tasks/schemas";
import { readPublicTask } from "../../tasks/service";
import { publicProcedure, router } from "../trpc";

export const publicRouter = router({
  task: publicProcedure
    .meta({ openapi: { method: "GET", path: "/api/v1/public/tasks/id/{id}", tags: ["public"], summary: "A public watch (anonymous)", errorResponses: { 404: "Task not found", 429: "Rate limit exceeded" } } })
    .input(z.object({ id: Id }))
    .output(TaskSchema)
    .query(async ({ ctx, input }) => {
      // Credentials are optional here; they only keep the owner's own reads out of view_count.
      const reader = ctx.headers.has("authorization")
        ? await authenticate(ctx.headers, ctx.clientIp).then((c) => c.user?.id ?? null, () => null)
        : null;
      return readPublicTask(input.id, reader);
    }),

  health: publicProcedure
    .meta({ openapi: { method: "GET", path: "/api/health", tags: ["system"], summary: "Liveness and dependencies", errorResponses: { 503: "Database unreachable" } } })
    .input(z.void())
    .output(z.object({ status: z.enum(["ok", "degraded"]), database: z.string(), scheduler: z.string() }))
    .query(async ({ ctx }) => {
      const databaseStatus = await database()
        .prisma.$queryRaw`SELECT 1`.then(() => "ok", (e: unknown) => `unreachable: ${(e as Error).message}`);
      const schedulerStatus = await scheduler().health().catch((e: unknown) => `error: ${(e as Error).message}`);
      if (databaseStatus !== "ok") ctx.res.status = 503;
      return { status: databaseStatus === "ok" && schedulerStatus === "ok" ? "ok" : "degraded", database: databaseStatus, scheduler: schedulerStatus };
    }),
});
