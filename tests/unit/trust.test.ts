/** The confidence and corroboration gate: edges, same-site subdomains, public suffixes, duplicates. */
import { describe, expect, it } from "vitest";
import { gate, independentSites } from "@/server/runs/trust";

const src = (url: string, title = "") => ({ url, title });

describe("independent sites", () => {
  it.each([
    [["https://www.example.com/a", "https://example.com/b", "https://news.example.com/c"], 1],
    [["https://a.example.co.uk/x", "https://www.example.co.uk/y"], 1],
    [["https://example.co.uk/x", "https://example.org.uk/x"], 2],
    [["https://alice.github.io/post", "https://bob.github.io/post"], 2],
    [["https://www.bbc.co.uk/news/1", "https://www.reuters.com/x", "https://apnews.com/y"], 3],
    [["https://example.com/a", "https://example.com/a", "https://example.com/a#top"], 1],
    [["not a url", "javascript:alert(1)"], 0],
    [["http://127.0.0.1:8080/x", "http://localhost/y"], 2],
    [[], 0],
  ])("%j → %i", (urls, n) => {
    expect(independentSites((urls as string[]).map((u) => src(u)))).toBe(n);
  });

  it("counts an unresolved Gemini redirector link by the site its title names, not by the redirector", () => {
    const redirect = (title: string) =>
      src(`https://vertexaisearch.cloud.google.com/grounding-api-redirect/${title}-token`, title);
    expect(independentSites([redirect("uefa.com"), redirect("www.uefa.com"), redirect("bbc.co.uk")])).toBe(2);
    expect(independentSites([redirect("uefa.com"), src("https://www.uefa.com/news")])).toBe(1);
  });
});

describe("gate", () => {
  const bounds = { min_confidence: 0.6, min_sources: 2 };
  const two = [src("https://a.com/x"), src("https://b.org/y")];

  it("passes at exactly the bounds", () => {
    expect(gate({ confidence: 0.6, sources: two }, bounds)).toEqual({ passed: true, reason: null });
  });

  it("says why it holds a finding", () => {
    expect(gate({ confidence: 0.55, sources: two }, bounds)).toEqual({
      passed: false,
      reason: "confidence 0.55 is below 0.6",
    });
    expect(gate({ confidence: 0.9, sources: [two[0]!] }, bounds)).toEqual({
      passed: false,
      reason: "1 independent source, 2 required",
    });
    expect(gate({ confidence: 0.1, sources: [] }, bounds)).toEqual({
      passed: false,
      reason: "confidence 0.1 is below 0.6; 0 independent sources, 2 required",
    });
    expect(gate({ confidence: 0, sources: [] }, { min_confidence: 0, min_sources: 1 }).passed).toBe(false);
    expect(gate({ confidence: 1, sources: [src("https://a.com")] }, { min_confidence: 1, min_sources: 1 }).passed).toBe(
      true,
    );
  });
});
