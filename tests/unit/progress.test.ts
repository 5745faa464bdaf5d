/** What a run's progress says: each search and page read of a model step, the decision, whom the notices go to. */
import { describe, expect, it } from "vitest";
import { stepProgress } from "@/server/agent/progress";
import { decisionProgress } from "@/server/runs/progress";

describe("a model step's progress", () => {
  it("names each search by its query and each page by its URL, a redirector link by its site", () => {
    expect(
      stepProgress({
        toolCalls: [
          { toolName: "web_search", input: { query: "postgres 19 beta" } },
          { toolName: "fetch_page", input: { url: "https://www.postgresql.org/about/news/" } },
          { toolName: "other", input: 42 },
        ],
        sources: [
          {
            sourceType: "url",
            url: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZ",
            title: "uefa.com",
          },
          { sourceType: "url", url: "https://example.org/page", title: "A page" },
          { sourceType: "document", title: "not a page" },
        ],
      }),
    ).toEqual([
      { step: "search", detail: "postgres 19 beta" },
      { step: "read", detail: "https://www.postgresql.org/about/news/" },
      { step: "read", detail: "uefa.com" },
      { step: "read", detail: "https://example.org/page" },
    ]);
  });

  it("keeps a detail short whatever the model asked", () => {
    const [entry] = stepProgress({
      toolCalls: [{ toolName: "web_search", input: { query: "x".repeat(1000) } }],
      sources: [],
    });
    expect(entry!.detail).toHaveLength(300);
    expect(entry!.detail.endsWith("…")).toBe(true);
  });
});

describe("the record step's progress", () => {
  const at = new Date("2026-11-26T10:00:00Z");
  const base = {
    condition_met: true,
    confidence: 0.92,
    findingTitle: "Beta 1 is out" as string | null,
    isNew: true,
    held: null as string | null,
    notified: true,
    retracted: false,
    channels: ["email", "webhook"],
  };

  it("says what was decided and where it went", () => {
    expect(decisionProgress(at, base)).toEqual([
      { at: at.toISOString(), step: "decide", detail: "Met · 92% sure · new finding: Beta 1 is out" },
      { at: at.toISOString(), step: "notify", detail: "Sending the finding to email, webhook and followers" },
    ]);
  });

  it("says a confirmation, a held finding, a retraction and a not-met answer in their own words", () => {
    const details = (o: Partial<typeof base>) => decisionProgress(at, { ...base, ...o }).map((l) => l.detail);
    expect(details({ isNew: false, notified: false })).toEqual(["Met · 92% sure · confirms: Beta 1 is out"]);
    expect(details({ held: "1 independent source, 2 required", notified: false })).toEqual([
      "Met · 92% sure · held: 1 independent source, 2 required",
    ]);
    expect(
      details({
        condition_met: false,
        findingTitle: null,
        isNew: false,
        notified: false,
        retracted: true,
        channels: [],
      }),
    ).toEqual(["Not met", "Sending the retraction to followers (the watch has no channel)"]);
  });
});
