/**
 * Each verdict state as the surfaces say it, rendered without a browser: the verdict card (the watch's page), a watch's
 * card (home, Explore, profiles, Following) and the badge. No state is disguised as another: never "Not yet" over a
 * found answer, never "Watching" on a paused watch, a failure said once with whose it is.
 */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { VerdictCard } from "../../app/ui/verdict-card";
import { WatchCard } from "../../app/ui/watch-card";
import { verdictLabel } from "../../server/public/verdict";
import type { Resolution, TaskView } from "../../server/tasks/schemas";
import type { Verdict, VerdictState } from "../../server/tasks/verdict";

const FOUND = "2026-11-02T10:00:00.000Z";
const CHECKED = "2026-11-03T09:00:00.000Z";
const met: Resolution = {
  status: "met",
  since: FOUND,
  answer: "PostgreSQL 19 Beta 1 was released today.",
  sources: [
    { url: "https://www.postgresql.org/about/news/pg19-beta1/", title: "Beta 1 Released", domain: "postgresql.org" },
  ],
};
const watching: Resolution = { status: "watching", since: null, answer: null, sources: [] };
const latest = {
  at: CHECKED,
  answer: "No beta yet; the schedule says May.",
  sources: [],
  reason: "The beta is due in May.",
};

const verdict = (state: VerdictState, over: Partial<Verdict> = {}): Verdict => ({
  state,
  since: null,
  as_of: CHECKED,
  running: false,
  failure: null,
  retry_at: null,
  reason: null,
  ...over,
});

/** state → its verdict, resolution, and what the card must and must not say. */
const CASES: {
  name: string;
  v: Verdict;
  r: Resolution;
  says: string[];
  never: string[];
  badge: string;
}[] = [
  {
    name: "met",
    v: verdict("met", { since: FOUND }),
    r: met,
    says: ["Met", "Yes, per these sources", "Found 2 Nov 2026", "PostgreSQL 19 Beta 1 was released today."],
    never: ["Not yet"],
    badge: "met · 2 Nov 2026",
  },
  {
    name: "not yet",
    v: verdict("not_yet"),
    r: watching,
    says: ["Not yet", "No, not yet", "Latest answer, as of", "No beta yet", "Why then: The beta is due in May."],
    never: ["Yes"],
    badge: "not yet",
  },
  {
    name: "held",
    v: verdict("held", { since: CHECKED, reason: "1 independent source, 2 required" }),
    r: watching,
    says: [
      "Found, not sent",
      "Yes, but nobody was told yet",
      "1 independent source, 2 required",
      "What it found, as of",
    ],
    never: ["Not yet", "Watching"],
    badge: "found, not sent",
  },
  {
    name: "paused",
    v: verdict("paused", { since: CHECKED }),
    r: watching,
    says: ["Paused", "since", "Not checking", "Last answer, as of", "No beta yet"],
    never: ["Watching", "Not yet"],
    badge: "paused",
  },
  {
    name: "met on a paused watch",
    v: verdict("met", { since: FOUND }),
    r: met,
    says: ["Met", "Yes, per these sources", "PostgreSQL 19 Beta 1 was released today."],
    never: ["Not yet", "Watching", "Paused"],
    badge: "met · 2 Nov 2026",
  },
  {
    name: "can't check (ours)",
    v: verdict("cant_check", {
      since: CHECKED,
      failure: "ours",
      retry_at: "2026-11-03T12:05:00.000Z",
      reason: "The web search provider is failing.",
    }),
    r: watching,
    says: [
      "Can't check",
      "Checks are failing; Watch is retrying",
      "The web search provider is failing.",
      "Watch retries at",
    ],
    never: ["Not yet", "has not found"],
    badge: "can't check",
  },
  {
    name: "can't check (yours)",
    v: verdict("cant_check", {
      since: CHECKED,
      failure: "yours",
      reason: "A site this watch reads cannot be reached from the public internet: point it at a public page.",
    }),
    r: watching,
    says: ["Can't check", "Checks fail: the watch needs a change", "point it at a public page"],
    never: ["Not yet", "Watch retries"],
    badge: "can't check",
  },
  {
    name: "first check",
    v: verdict("first_check", { as_of: null, running: true, since: CHECKED }),
    r: watching,
    says: ["First check", "First check running…"],
    never: ["Not yet", "Next check"],
    badge: "first check",
  },
  {
    name: "resolved",
    v: verdict("resolved", { since: FOUND }),
    r: { ...met, status: "resolved" },
    says: ["Resolved", "Yes, per these sources", "the watch is complete"],
    never: ["Not yet"],
    badge: "resolved · 2 Nov 2026",
  },
];

const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, " ");

describe("every verdict state, on every surface", () => {
  it.each(CASES)("$name: the verdict card says it", ({ v, r, says, never }) => {
    const html = renderToStaticMarkup(
      createElement(VerdictCard, {
        verdict: v,
        resolution: r,
        latest: v.state === "first_check" ? null : latest,
        next: v.state === "not_yet" ? "Next check in 3 hours." : null,
        owner: true,
      }),
    );
    const words = text(html);
    for (const s of says) expect(words).toContain(s);
    for (const s of never) expect(words).not.toContain(s);
    expect(html).toContain(`data-state="${v.state}"`);
  });

  it("a failure is said once, with whose it is", () => {
    const { v, r } = CASES.find((c) => c.name === "can't check (ours)")!;
    const words = text(renderToStaticMarkup(createElement(VerdictCard, { verdict: v, resolution: r, latest })));
    expect(words.match(/search provider is failing/g)).toHaveLength(1);
    expect(words).toContain("Nothing to do on your side");
  });

  it.each(CASES)("$name: a card says the state, the latest answer and as of when", ({ v, r }) => {
    const task = {
      id: "0b7c5a52-6f0e-4f8e-8e62-3c1d1d0a9f11",
      name: "Is Postgres 19 beta out?",
      condition_description: "a PostgreSQL 19 beta release is announced",
      view_count: 3,
      owner: { username: "ada" },
      verdict: v,
      resolution: r,
      latest_answer: "No beta yet; the schedule says May.",
    } as unknown as TaskView;
    const words = text(renderToStaticMarkup(createElement(WatchCard, { task })));
    expect(words).toContain("No beta yet; the schedule says May.");
    if (v.state === "first_check") expect(words).toContain("first check running…");
    else expect(words).toMatch(/as of \S/);
    if (v.state === "met" || v.state === "resolved") expect(words).toContain("found 2 Nov 2026 · as of");
    expect(words).not.toContain("Watching");
  });

  it.each(CASES)("$name: the badge says $badge", ({ v, badge }) => {
    expect(verdictLabel(v)).toBe(badge);
  });
});
