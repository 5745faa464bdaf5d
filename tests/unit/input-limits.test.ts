/** Input the database or the parser cannot take: NUL characters, lone surrogates, JSON nested too deeply. */
import { describe, expect, it } from "vitest";
import { jsonTooDeep } from "@/server/api/json";
import { storable, text } from "@/lib/text";

describe("text()", () => {
  it("accepts any well-formed text and refuses NUL and unpaired surrogates", () => {
    for (const ok of ["", "plain", "emoji 😀", "ספר 日本語", "\u{10FFFF}", "tab\tnew\nline"])
      expect(text().safeParse(ok).success, ok).toBe(true);
    for (const bad of ["\0", "a\u0000b", "\ud800", "a\udc00", "\udbff\ud800"])
      expect(text().safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it("storable() cleans what the agent returns, in strings and keys at any depth", () => {
    expect(storable({ "k\0": ["a\u0000b", { x: "\ud800" }], n: 1, d: null })).toEqual({
      k: ["ab", { x: "\ufffd" }],
      n: 1,
      d: null,
    });
  });
});

describe("jsonTooDeep", () => {
  it("counts nesting outside strings only", () => {
    expect(jsonTooDeep("[".repeat(64) + "]".repeat(64))).toBe(false);
    expect(jsonTooDeep("[".repeat(65) + "]".repeat(65))).toBe(true);
    expect(jsonTooDeep('{"a":"' + "[".repeat(1000) + '"}')).toBe(false);
    expect(jsonTooDeep('{"a":"\\"' + "{".repeat(1000) + '"}')).toBe(false);
    expect(jsonTooDeep('[{"a":[{"b":[]}]}]', 5)).toBe(false);
    expect(jsonTooDeep('[{"a":[{"b":[]}]}]', 4)).toBe(true);
  });
});
