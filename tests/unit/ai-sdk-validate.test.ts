/**
 * The AI SDK checks every provider answer and tool input against a zod schema. Patched (scripts/patches), it parses
 * synchronously, zod's compiled path, and falls back to the asynchronous parse only for a schema with async checks:
 * the same answers either way.
 */
import { describe, expect, it } from "vitest";
import { zodSchema } from "@ai-sdk/provider-utils";
import { z } from "zod";

const validate = (schema: z.ZodType, value: unknown) => zodSchema(schema).validate!(value);

describe("the AI SDK's schema check", () => {
  const answer = z.object({ id: z.string(), choices: z.array(z.object({ text: z.string().nullish() })) });

  it("passes a valid answer as parsed (unknown keys dropped) and fails an invalid one with zod's issues", async () => {
    expect(await validate(answer, { id: "a", choices: [{ text: "hi", extra: 1 }] })).toEqual({
      success: true,
      value: { id: "a", choices: [{ text: "hi" }] },
    });
    const failed = await validate(answer, { id: 1, choices: [] });
    expect(failed.success).toBe(false);
    expect(!failed.success && failed.error).toBeInstanceOf(z.ZodError);
  });

  it("still runs a schema's async checks", async () => {
    const known = z.string().refine(async (s) => s === "known");
    expect(await validate(known, "known")).toEqual({ success: true, value: "known" });
    expect((await validate(known, "other")).success).toBe(false);
  });
});
