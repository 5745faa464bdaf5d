/** The one date formatter every page, the badge and the Open Graph image use; and the words for a run's outcome. */
import { describe, expect, it } from "vitest";
import { outcomeOf } from "../../lib/outcome";
import { formatDate, formatDateTime, formatElapsed, formatRelative, plural } from "../../server/render/dates";
import { verdictLabel } from "../../server/public/verdict";

const at = "2026-09-02T23:30:00Z";

describe("dates", () => {
  it("says the day in the reader's zone, with the same month names in every runtime", () => {
    expect(formatDate(at)).toBe("2 Sep 2026"); // not en-GB's "Sept"
    expect(formatDate(at, "Europe/Berlin")).toBe("3 Sep 2026");
    expect(formatDate(at, "America/Los_Angeles")).toBe("2 Sep 2026");
    expect(verdictLabel({ state: "met", since: at })).toBe("met · 2 Sep 2026");
  });

  it("gives the time in 24 hours with the zone's name, and falls back to UTC for a zone it does not know", () => {
    expect(formatDateTime(at)).toBe("2 Sep 2026, 23:30 UTC");
    expect(formatDateTime("2026-09-03T00:05:00Z", "UTC")).toBe("3 Sep 2026, 00:05 UTC");
    expect(formatDateTime(at, "America/New_York")).toBe("2 Sep 2026, 19:30 EDT");
    expect(formatDateTime(at, "Not/AZone")).toBe("2 Sep 2026, 23:30 UTC");
  });

  it("says how long ago or how soon, in the largest unit that fits", () => {
    const now = Date.parse(at);
    expect(formatRelative(new Date(now - 20_000), now)).toBe("just now");
    expect(formatRelative(new Date(now + 20_000), now)).toBe("in under a minute");
    expect(formatRelative(new Date(now - 5 * 60_000), now)).toBe("5 minutes ago");
    expect(formatRelative(new Date(now + 3 * 3_600_000), now)).toBe("in 3 hours");
    expect(formatRelative(new Date(now - 86_400_000), now)).toBe("yesterday");
    expect(formatRelative(new Date(now - 14 * 86_400_000), now)).toBe("2 weeks ago");
    expect(formatRelative(new Date(now - 400 * 86_400_000), now)).toBe("last year");
  });

  it("counts a running check up in minutes and seconds", () => {
    expect(formatElapsed(0)).toBe("0:00");
    expect(formatElapsed(12_400)).toBe("0:12");
    expect(formatElapsed(754_000)).toBe("12:34");
    expect(formatElapsed(3_723_000)).toBe("1:02:03");
  });

  it("counts things with the right plural", () => {
    expect(plural(1, "fork")).toBe("1 fork");
    expect(plural(2, "fork")).toBe("2 forks");
    expect(plural(1200, "view")).toBe("1,200 views");
    expect(plural(1, "following", "following")).toBe("1 following");
    expect(plural(3, "person", "people")).toBe("3 people");
  });
});

describe("a run's outcome in the list", () => {
  const base = { id: "e", task_id: "t", started_at: at, completed_at: at, error_message: null };
  const run = (status: string, result: unknown) => ({ ...base, status, result }) as Parameters<typeof outcomeOf>[0];
  const met = { condition_met: true, answer: "", evidence: "", confidence: 0.9, duration_ms: 1 };

  it("tells a held finding (nobody told yet) from a met one", () => {
    expect(outcomeOf(null)).toBe("never run");
    expect(outcomeOf(run("running", null))).toBe("running");
    expect(outcomeOf(run("failed", null))).toBe("failed");
    expect(outcomeOf(run("success", { ...met, condition_met: false }))).toBe("not met");
    expect(outcomeOf(run("success", { ...met, gate: { passed: true, reason: null } }))).toBe("met");
    expect(outcomeOf(run("success", { ...met, gate: null }))).toBe("met"); // confirms an earlier finding
    expect(outcomeOf(run("success", { ...met, gate: { passed: false, reason: "1 source" } }))).toBe("met · held");
  });
});
