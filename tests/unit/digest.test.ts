/** The daily digest's sections: one per watch, findings in time order, times in the reader's zone. */
import { describe, expect, it } from "vitest";
import { groupByWatch } from "@/server/notify/digest";

const finding = (taskId: string, at: string, title: string, retraction = false) => ({
  taskId,
  watchName: `watch ${taskId}`,
  watchUrl: `https://watch.test/w/${taskId}`,
  title,
  answer: `${title}.`,
  at: new Date(at),
  retraction,
});

describe("the digest", () => {
  it("groups findings by watch, ordered by each watch's first finding, each watch's findings in time order", () => {
    const groups = groupByWatch(
      [
        finding("b", "2026-11-23T15:00:00Z", "b2"),
        finding("a", "2026-11-23T09:00:00Z", "a1"),
        finding("b", "2026-11-23T08:00:00Z", "b1"),
        finding("a", "2026-11-23T20:00:00Z", "a2 withdrawn", true),
      ],
      "UTC",
    );
    expect(groups.map((g) => [g.watchName, g.items.map((i) => i.title)])).toEqual([
      ["watch b", ["b1", "b2"]],
      ["watch a", ["a1", "a2 withdrawn"]],
    ]);
    expect(groups[1]!.items[1]).toMatchObject({ retraction: true, answerHtml: "<p>a2 withdrawn.</p>\n" });
    expect(groups[0]!.watchUrl).toBe("https://watch.test/w/b");
  });

  it("writes each time in the reader's zone, across a date line and in summer time", () => {
    const [tokyo] = groupByWatch([finding("a", "2026-11-23T20:30:00Z", "x")], "Asia/Tokyo");
    expect(tokyo!.items[0]!.at).toBe("24 Nov, 05:30 GMT+9");
    const [berlin] = groupByWatch([finding("a", "2026-07-01T06:15:00Z", "x")], "Europe/Berlin");
    expect(berlin!.items[0]!.at).toBe("1 Jul, 08:15 CEST");
  });

  it("is empty without findings", () => {
    expect(groupByWatch([], "UTC")).toEqual([]);
  });
});
