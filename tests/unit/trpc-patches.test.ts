/**
 * tRPC, patched (scripts/patches): a zod schema parses synchronously (zod's compiled path) and asynchronously only
 * when it has async checks, and the middleware chain copies its options by native spread. The answers are the same.
 */
import { describe, expect, it } from "vitest";
import { initTRPC, TRPCError } from "@trpc/server";
import { z } from "zod";

const t = initTRPC.context<{ user?: string; seen?: string[] }>().create();
const withUser = t.middleware(({ ctx, next }) => next({ ctx: { user: "ada", seen: [...(ctx.seen ?? []), "user"] } }));
const tagged = t.middleware(({ ctx, next }) => next({ ctx: { seen: [...(ctx.seen ?? []), "tag"] } }));

const router = t.router({
  echo: t.procedure
    .use(withUser)
    .use(tagged)
    .input(z.object({ n: z.number().int() }))
    .output(z.object({ n: z.number(), user: z.string(), seen: z.array(z.string()) }))
    .query(({ input, ctx }) => ({ n: input.n, user: ctx.user!, seen: ctx.seen!, dropped: true })),
  known: t.procedure.input(z.string().refine(async (s) => s === "known", "unknown name")).query(({ input }) => input),
  wrong: t.procedure.output(z.object({ n: z.number() })).query(() => ({ n: "one" }) as unknown as { n: number }),
});
const caller = t.createCallerFactory(router)({ seen: ["start"] });

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as TRPCError,
  );

describe("tRPC's checks, patched", () => {
  it("parses input and output (unknown keys dropped) and merges each middleware's context", async () => {
    expect(await caller.echo({ n: 2 })).toEqual({ n: 2, user: "ada", seen: ["start", "user", "tag"] });
  });

  it("refuses bad input as BAD_REQUEST with zod's error as the cause", async () => {
    const e = await failure(caller.echo({ n: 1.5 }));
    expect(e).toBeInstanceOf(TRPCError);
    expect(e!.code).toBe("BAD_REQUEST");
    expect(e!.cause).toBeInstanceOf(z.ZodError);
  });

  it("still runs a schema's async checks", async () => {
    expect(await caller.known("known")).toBe("known");
    const e = await failure(caller.known("other"));
    expect(e!.code).toBe("BAD_REQUEST");
    expect((e!.cause as z.ZodError).issues[0]!.message).toBe("unknown name");
  });

  it("answers output that fails its schema as INTERNAL_SERVER_ERROR", async () => {
    const e = await failure(caller.wrong());
    expect(e!.code).toBe("INTERNAL_SERVER_ERROR");
    expect(e!.message).toBe("Output validation failed");
  });
});
