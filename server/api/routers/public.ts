import { z } from "zod";
import { text } from "../../../lib/text";
import { authenticate } from "../../auth";
import { serviceHealth } from "../../health";
import { FindingPaging, FindingSchema, Id, TaskSchema, TotalCount } from "../../tasks/schemas";
import { listPublicFindings } from "../../tasks/findings";
import { readPublicTask } from "../../tasks/service";
import { PUBLIC_CACHE_CONTROL } from "../../http/conditional";
import { joinWaitlist, listPublicTasks, listWaitlist } from "../../public/service";
import { adminProcedure, publicProcedure, router } from "../trpc";

export const publicRouter = router({
  list: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/public/tasks",
        tags: ["public"],
        summary: "Browse public watches (anonymous); total count in X-Total-Count",
        responseHeaders: z.object({
          "X-Total-Count": z
            .string()
            .max(20)
            .meta({ description: "How many public watches match, exactly up to 1000; past it, 1000" }),
          "X-Total-Count-Capped": z
            .enum(["true"])
            .optional()
            .meta({ description: "Sent when more than 1000 match (X-Total-Count is then 1000)" }),
        }),
      },
      rateLimit: "public-list",
    })
    .input(
      z.object({
        sort: z.enum(["recent", "popular"]).default("recent"),
        q: text().max(200).optional(),
        limit: z.number().int().min(1).max(100).default(20),
        offset: z.number().int().min(0).default(0),
      }),
    )
    .output(z.array(TaskSchema))
    .query(async ({ ctx, input }) => {
      const { tasks, total, capped } = await listPublicTasks(input);
      ctx.res.headers["X-Total-Count"] = String(total);
      if (capped) ctx.res.headers["X-Total-Count-Capped"] = "true";
      return tasks;
    }),

  joinWaitlist: publicProcedure
    .meta({
      openapi: {
        method: "POST",
        path: "/api/v1/public/waitlist",
        tags: ["public"],
        summary: "Join the waitlist",
        errorResponses: { 409: "Email already on waitlist" },
      },
      rateLimit: "waitlist",
    })
    .input(z.object({ email: z.email({ pattern: z.regexes.html5Email }).max(320) }).strict())
    .output(z.object({ message: z.string(), position: z.number().int() }))
    .mutation(({ input }) => joinWaitlist(input.email)),

  waitlist: adminProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/admin/waitlist",
        tags: ["admin"],
        summary: "The waitlist (admins)",
      },
    })
    .input(z.void())
    .output(z.array(z.object({ email: z.string(), position: z.number().int(), created_at: z.string() })))
    .query(() => listWaitlist()),

  task: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/public/tasks/id/{id}",
        tags: ["public"],
        summary:
          "A public watch (anonymous); counts a view. ETag (weak, without view_count): 304 to a matching If-None-Match, no view counted",
        errorResponses: { 404: "Task not found" },
      },
      rateLimit: "public-task",
      conditional: true,
    })
    .input(z.object({ id: Id }))
    .output(TaskSchema)
    .query(async ({ ctx, input }) => {
      // Credentials are optional here; they only keep the owner's own reads out of view_count.
      const reader = ctx.headers.has("authorization")
        ? await authenticate(ctx.headers, ctx.clientIp).then(
            (c) => c.user?.id ?? null,
            () => null,
          )
        : null;
      const rest = ctx.via === "rest";
      const { view, etag, notModified } = await readPublicTask(
        input.id,
        reader,
        rest ? ctx.headers.get("if-none-match") : null,
      );
      if (rest) {
        ctx.res.headers.ETag = etag;
        ctx.res.headers["Cache-Control"] = PUBLIC_CACHE_CONTROL;
        // The REST layer sends a 304 without its body (server/api/rest.ts).
        if (notModified) ctx.res.status = 304;
      }
      return view;
    }),

  findings: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/v1/public/tasks/id/{id}/findings",
        tags: ["public"],
        summary:
          "A public watch's findings (anonymous), newest first: notified and retracted ones; total in X-Total-Count",
        errorResponses: { 404: "Task not found" },
        responseHeaders: TotalCount,
      },
      rateLimit: "public-findings",
    })
    .input(z.object({ id: Id, ...FindingPaging }))
    .output(z.array(FindingSchema))
    .query(async ({ ctx, input }) => {
      const { findings, total } = await listPublicFindings(input.id, input);
      ctx.res.headers["X-Total-Count"] = String(total);
      return findings;
    }),

  health: publicProcedure
    .meta({
      openapi: {
        method: "GET",
        path: "/api/health",
        tags: ["system"],
        summary: "Liveness and dependencies",
      },
      alsoAnswers: { 503: "The database cannot be reached (`database` says why)" },
      operational: true,
    })
    .input(z.void())
    .output(z.object({ status: z.enum(["ok", "degraded"]), database: z.string(), scheduler: z.string() }))
    .query(async ({ ctx }) => {
      const health = await serviceHealth();
      if (health.database !== "ok") ctx.res.status = 503;
      return health;
    }),
});
