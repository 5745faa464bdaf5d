/**
 * The AI SDK checks every provider answer and tool input against a zod schema. Patched (scripts/patches), it parses
 * synchronously, zod's compiled path, and falls back to the asynchronous parse only for a schema with async checks:
 * the same answers either way. It checks every prompt's messages against one schema, where it built a new one (which
 * zod walked and compiled again) per call.
 */
import { describe, expect, it } from "vitest";
import { generateText, InvalidPromptError, type ModelMessage } from "ai";
import { MockLanguageModelV3 } from "ai/test";
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

describe("the AI SDK's prompt check", () => {
  const model = () =>
    new MockLanguageModelV3({
      doGenerate: {
        content: [{ type: "text", text: "ok" }],
        finishReason: { unified: "stop" as const, raw: "stop" },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      },
    });

  it("passes valid messages to the model and refuses invalid ones, call after call", async () => {
    for (let i = 0; i < 3; i++) {
      const m = model();
      const valid: ModelMessage[] = [
        { role: "user", content: [{ type: "text", text: `question ${i}` }] },
        { role: "assistant", content: "an answer" },
        { role: "user", content: "and?" },
      ];
      expect((await generateText({ model: m, messages: valid })).text).toBe("ok");
      expect(m.doGenerateCalls[0]!.prompt.at(-1)).toMatchObject({ role: "user", content: [{ text: "and?" }] });
      const invalid = [{ role: "user", content: [{ type: "text", text: 42 }] }] as unknown as ModelMessage[];
      await expect(generateText({ model: model(), messages: invalid })).rejects.toBeInstanceOf(InvalidPromptError);
    }
  });
});
