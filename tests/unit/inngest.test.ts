/**
 * The Inngest driver's functions, run by @inngest/test with every step mocked (no Inngest server exists
 * here): the order and ids of the steps, the sleep until next_run, the re-arm event and webhook retries.
 */
import { InngestTestEngine } from "@inngest/test";
import { describe, expect, it, vi } from "vitest";
import { inngest } from "@/inngest/client";
import { requestedRun, scheduledRun } from "@/inngest/functions";

const plan = {
  executionId: "11111111-1111-4111-8111-111111111111",
  userId: "22222222-2222-4222-8222-222222222222",
  watch: { id: "t1", user_id: "u1", name: "n", search_query: "q", condition_description: "c" },
  lastKnownState: null,
  recent: [],
};
const evaluation = { ok: true, decision: { condition_met: true }, model: "m", usage: { input_tokens: 1, output_tokens: 1 }, duration_ms: 1 };
const nextRun = "2030-01-01T00:00:00.000Z";
const armed = { name: "watch/armed", data: { taskId: "t1", at: nextRun } } as const;
const requested = { name: "watch/run.requested", data: { taskId: "t1", executionId: plan.executionId } } as const;

// The engine mutates the array it is given: build a fresh one per execution.
function steps(overrides: Record<string, (() => unknown) | null> = {}) {
  const base: Record<string, (() => unknown) | null> = {
    "wait-next-run": () => undefined,
    begin: () => plan,
    evaluate: () => evaluation,
    persist: () => ({ notify: true, nextRun }),
    "arm-next": () => undefined,
    "deliver-email": () => ({ status: "sent", retry: false }),
    "deliver-webhook-1": () => ({ status: "sent", retry: false }),
    ...overrides,
  };
  return Object.entries(base).flatMap(([id, handler]) => (handler ? [{ id, handler }] : []));
}

describe("inngest functions", () => {
  it("a scheduled run sleeps until its wake-up time, then runs every step once", async () => {
    const t = new InngestTestEngine({ function: scheduledRun, events: [armed] });
    const sleep = await t.executeStep("wait-next-run", { steps: steps({ "wait-next-run": null }) });
    expect(sleep.step).toMatchObject({ op: "Sleep", name: nextRun });
    const { result } = await t.execute({ steps: steps() });
    expect(result).toEqual({ ran: true, executionId: plan.executionId, nextRun });
  });

  it("re-arms the watch with its next_run", async () => {
    // step.sendEvent goes through the client; no Inngest server here, so capture what it would send.
    const send = vi.spyOn(inngest as unknown as { _send: (p: unknown) => Promise<unknown> }, "_send").mockResolvedValue({ ids: ["e1"] });
    const t = new InngestTestEngine({ function: scheduledRun, events: [armed] });
    await t.executeStep("arm-next", { steps: steps({ "arm-next": null }) });
    const sent = send.mock.calls.flatMap((c) => JSON.stringify((c[0] as { payload?: unknown }).payload ?? null));
    expect(sent.join()).toContain(JSON.stringify({ name: "watch/armed", data: { taskId: "t1", at: nextRun } }));
    send.mockRestore();
  });

  it("stops after begin when there is nothing to run", async () => {
    const t = new InngestTestEngine({ function: scheduledRun, events: [armed] });
    const { result } = await t.execute({ steps: steps({ begin: () => null }) });
    expect(result).toEqual({ ran: false });
  });

  it("does not deliver when the run decided not to notify", async () => {
    const t = new InngestTestEngine({ function: requestedRun, events: [requested] });
    const delivered: string[] = [];
    const { result } = await t.execute({
      steps: steps({
        persist: () => ({ notify: false, nextRun }),
        "deliver-email": () => delivered.push("email"),
        "deliver-webhook-1": () => delivered.push("webhook"),
      }),
    });
    expect(result).toMatchObject({ ran: true });
    expect(delivered).toEqual([]);
  });

  it("retries a failed webhook after 1 min, 5 min and 30 min, then gives up", async () => {
    const t = new InngestTestEngine({ function: requestedRun, events: [requested] });
    const attempts: number[] = [];
    const failing = (n: number) => () => (attempts.push(n), { status: "failed", retry: n < 4 });
    const first = await t.executeStep("webhook-retry-1", { steps: steps({ "deliver-webhook-1": failing(1) }) });
    expect(first.step).toMatchObject({ op: "Sleep" });
    const { result } = await t.execute({
      steps: steps({
        "deliver-webhook-1": failing(1),
        "webhook-retry-1": () => undefined,
        "deliver-webhook-2": failing(2),
        "webhook-retry-2": () => undefined,
        "deliver-webhook-3": failing(3),
        "webhook-retry-3": () => undefined,
        "deliver-webhook-4": failing(4),
      }),
    });
    expect(result).toMatchObject({ ran: true });
    expect(attempts.slice(-4)).toEqual([1, 2, 3, 4]);
  });
});
