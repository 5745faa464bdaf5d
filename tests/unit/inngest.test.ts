/**
 * The run workflow on the Inngest driver, run by @inngest/test with every step mocked (no Inngest server exists
 * here): the order and ids of the steps, the sleep until next_run, the idempotent re-arm and webhook events, the
 * webhook retries, and flow control from the shared config.
 */
import { InngestTestEngine } from "@inngest/test";
import { describe, expect, it, vi } from "vitest";
import { inngest } from "@/server/runs/inngest";
import { dailyRetention, deliveryRuns, findingSent, requestedRun, scheduledRun } from "@/inngest/functions";
import { CHANNEL_TYPES } from "@/channels/list";
import { flowControl, STEP } from "@/server/runs/workflow";

const { email: emailDeliveryRun, webhook: webhookDeliveryRun } = deliveryRuns;

const plan = {
  kind: "run",
  executionId: "11111111-1111-4111-8111-111111111111",
  userId: "22222222-2222-4222-8222-222222222222",
  watch: { id: "t1", user_id: "u1", name: "n", search_query: "q", condition_description: "c" },
  lastKnownState: null,
  recent: [],
};
const evaluation = {
  ok: true,
  decision: { condition_met: true },
  model: "m",
  usage: { input_tokens: 1, output_tokens: 1 },
  duration_ms: 1,
};
const nextRun = "2030-01-01T00:00:00.000Z";
const armed = { name: "watch/armed", data: { taskId: "t1", userId: plan.userId, at: nextRun } } as const;
const requested = {
  name: "watch/run.requested",
  data: { taskId: "t1", userId: plan.userId, executionId: plan.executionId },
} as const;
const deliver = {
  name: "watch/webhook.deliver",
  data: { executionId: plan.executionId, notice: { event: "task.condition_met" } },
} as const;

// The engine mutates the array it is given: build a fresh one per execution.
function steps(overrides: Record<string, (() => unknown) | null> = {}) {
  const base: Record<string, (() => unknown) | null> = {
    "wait-next-run": () => undefined,
    [STEP.begin]: () => plan,
    // The answer alone, as a run begun before the answer and its record were one step checkpointed it: `persist` follows.
    [STEP.evaluate]: () => evaluation,
    [STEP.persist]: () => ({ notices: [{ event: "task.condition_met" }], nextRun }),
    [STEP.armNext]: () => undefined,
    ...Object.fromEntries(CHANNEL_TYPES.map((t) => [STEP.startDelivery(t, "task.condition_met"), () => undefined])),
    [STEP.followers("task.condition_met")]: () => ({}),
    [STEP.deliver("webhook", 1)]: () => ({ status: "sent", retry: false }),
    ...overrides,
  };
  return Object.entries(base).flatMap(([id, handler]) => (handler ? [{ id, handler }] : []));
}

/** What step.sendEvent would send through the client (there is no Inngest server here). */
async function captureSends(fn: () => Promise<unknown>) {
  const send = vi
    .spyOn(inngest as unknown as { _send: (p: unknown) => Promise<unknown> }, "_send")
    .mockResolvedValue({ ids: ["e1"] });
  try {
    await fn();
    return send.mock.calls.map((c) => JSON.stringify((c[0] as { payload?: unknown }).payload ?? null)).join();
  } finally {
    send.mockRestore();
  }
}

describe("the run workflow on Inngest", () => {
  it("a scheduled run sleeps until its wake-up time, then runs every step once", async () => {
    const t = new InngestTestEngine({ function: scheduledRun, events: [armed] });
    const sleep = await t.executeStep("wait-next-run", { steps: steps({ "wait-next-run": null }) });
    expect(sleep.step).toMatchObject({ op: "Sleep", name: nextRun });
    const { result } = await t.execute({ steps: steps() });
    expect(result).toEqual({ ran: true, executionId: plan.executionId, nextRun });
  });

  it("re-arms the watch with an event whose id makes it idempotent", async () => {
    const t = new InngestTestEngine({ function: scheduledRun, events: [armed] });
    const sent = await captureSends(() => t.executeStep(STEP.armNext, { steps: steps({ [STEP.armNext]: null }) }));
    expect(sent).toContain(JSON.stringify({ id: `run:t1:${new Date(nextRun).getTime()}`, ...armed }));
  });

  it("hands the finding's webhook to its own function, once per execution", async () => {
    const t = new InngestTestEngine({ function: requestedRun, events: [requested] });
    const sent = await captureSends(() =>
      t.executeStep(STEP.startDelivery("webhook", "task.condition_met"), {
        steps: steps({ [STEP.startDelivery("webhook", "task.condition_met")]: null }),
      }),
    );
    expect(sent).toContain(JSON.stringify({ id: `webhook:${plan.executionId}`, ...deliver }));
  });

  it("records the answer in the evaluate step, with no persist step after it", async () => {
    const t = new InngestTestEngine({ function: requestedRun, events: [requested] });
    const ran: string[] = [];
    const { result } = await t.execute({
      steps: steps({
        [STEP.evaluate]: () => ({ notices: [], nextRun, channels: [] }),
        [STEP.persist]: () => void ran.push("persist"),
      }),
    });
    expect(result).toEqual({ ran: true, executionId: plan.executionId, nextRun });
    expect(ran).toEqual([]);
  });

  it("stops after begin when there is nothing to run", async () => {
    const t = new InngestTestEngine({ function: scheduledRun, events: [armed] });
    const { result } = await t.execute({ steps: steps({ [STEP.begin]: () => null }) });
    expect(result).toEqual({ ran: false });
  });

  it("over the monthly budget, only re-arms the watch for the next period", async () => {
    const t = new InngestTestEngine({ function: scheduledRun, events: [armed] });
    const ran: string[] = [];
    const { result } = await t.execute({
      steps: steps({
        [STEP.begin]: () => ({
          kind: "over-budget",
          userId: plan.userId,
          executionId: plan.executionId,
          nextRun,
          notices: [],
        }),
        [STEP.evaluate]: () => ran.push("evaluate"),
        [STEP.armNext]: () => void ran.push("arm-next"),
      }),
    });
    expect(result).toEqual({ ran: false, nextRun });
    expect(ran).toEqual(["arm-next"]);
  });

  it("does not deliver when the run decided not to notify", async () => {
    const t = new InngestTestEngine({ function: requestedRun, events: [requested] });
    const delivered: string[] = [];
    const { result } = await t.execute({
      steps: steps({
        [STEP.persist]: () => ({ notices: [], nextRun }),
        [STEP.startDelivery("email", "task.condition_met")]: () => delivered.push("email"),
        [STEP.startDelivery("webhook", "task.condition_met")]: () => delivered.push("webhook"),
      }),
    });
    expect(result).toMatchObject({ ran: true });
    expect(delivered).toEqual([]);
  });

  it("starts a delivery only for the channels the watch has; a run recorded before that was kept, for every channel", async () => {
    const started = async (persisted: Record<string, unknown>) => {
      const delivered: string[] = [];
      const t = new InngestTestEngine({ function: requestedRun, events: [requested] });
      await t.execute({
        steps: steps({
          [STEP.persist]: () => ({ nextRun, ...persisted }),
          ...Object.fromEntries(
            CHANNEL_TYPES.map((type) => [
              STEP.startDelivery(type, "task.condition_met"),
              () => void delivered.push(type),
            ]),
          ),
          ...Object.fromEntries(
            CHANNEL_TYPES.map((type) => [
              STEP.startDelivery(type, "task.run_failed"),
              () => void delivered.push(`${type} (failing)`),
            ]),
          ),
        }),
      });
      return delivered;
    };
    const met = [{ event: "task.condition_met" }];
    expect(await started({ notices: met, channels: ["slack", "webhook"] })).toEqual(["webhook", "slack"]);
    expect(await started({ notices: met, channels: [] })).toEqual([]);
    // A failing watch is also told to the account's own address, by email, whatever its channels.
    expect(
      await started({ notices: [{ event: "task.run_failed", consecutive_failures: 3 }], channels: ["ntfy"] }),
    ).toEqual(["email (failing)", "ntfy (failing)"]);
    // Recorded by an earlier version (no channels): its replay starts what that version started.
    expect(await started({ notices: met })).toEqual(CHANNEL_TYPES);
  });

  it("sends a held finding its owner sent anyway: the run's finding to the watch's channels and followers", async () => {
    const sent = { name: "watch/finding.sent", data: { executionId: plan.executionId, channels: ["email", "ntfy"] } };
    const delivered: string[] = [];
    const t = new InngestTestEngine({ function: findingSent, events: [sent] as never });
    const { result } = await t.execute({
      steps: [
        ...CHANNEL_TYPES.map((type) => ({
          id: STEP.startDelivery(type, "task.condition_met"),
          handler: () => void delivered.push(type),
        })),
        { id: STEP.followers("task.condition_met"), handler: () => ({ webhook: ["f1"] }) },
        {
          id: STEP.startDelivery("webhook", "task.condition_met", "f1"),
          handler: () => void delivered.push("webhook (follower)"),
        },
      ],
    });
    expect(result).toEqual({ executionId: plan.executionId });
    expect(delivered).toEqual(["email", "ntfy", "webhook (follower)"]);
  });

  it("retries a failed webhook after 1 min, 5 min and 30 min, then gives up", async () => {
    const t = new InngestTestEngine({ function: webhookDeliveryRun, events: [deliver] });
    const attempts: number[] = [];
    const failing = (n: number) => () => (attempts.push(n), { status: "failed", retry: n < 4 });
    const first = await t.executeStep(STEP.retryWait("webhook", 1), {
      steps: steps({ [STEP.deliver("webhook", 1)]: failing(1) }),
    });
    expect(first.step).toMatchObject({ op: "Sleep" });
    const { result } = await t.execute({
      steps: steps({
        [STEP.deliver("webhook", 1)]: failing(1),
        [STEP.retryWait("webhook", 1)]: () => undefined,
        [STEP.deliver("webhook", 2)]: failing(2),
        [STEP.retryWait("webhook", 2)]: () => undefined,
        [STEP.deliver("webhook", 3)]: failing(3),
        [STEP.retryWait("webhook", 3)]: () => undefined,
        [STEP.deliver("webhook", 4)]: failing(4),
      }),
    });
    expect(result).toEqual({ attempts: 4, status: "failed" });
    expect(attempts.slice(-4)).toEqual([1, 2, 3, 4]);
  });

  it("holds an email in quiet hours with a durable sleep, then sends it; a digest user's finding waits for the digest", async () => {
    const email = {
      name: "watch/email.deliver",
      data: { executionId: plan.executionId, notice: { event: "task.condition_met" } },
    } as const;
    const sent: string[] = [];
    const later = (kind: string, at?: string) => ({
      [STEP.plan("email")]: () => ({ kind, at }),
      [STEP.quietHours]: () => void sent.push("slept"),
      [STEP.deliver("email", 1)]: () => (sent.push("sent"), { status: "sent", retry: false }),
    });
    const held = new InngestTestEngine({ function: emailDeliveryRun, events: [email] });
    const sleep = await held.executeStep(STEP.quietHours, {
      steps: steps({ ...later("later", "2030-01-01T07:00:00.000Z"), [STEP.quietHours]: null }),
    });
    expect(sleep.step).toMatchObject({ op: "Sleep" });
    await held.execute({ steps: steps(later("later", "2030-01-01T07:00:00.000Z")) });
    expect(sent).toEqual(["slept", "sent"]);
    sent.length = 0;
    const digest = new InngestTestEngine({ function: emailDeliveryRun, events: [email] });
    expect((await digest.execute({ steps: steps(later("digest")) })).result).toEqual({ kind: "digest" });
    expect(sent).toEqual([]);
  });

  it("runs the daily retention job at its time, then arms the next day's under an idempotent id", async () => {
    const at = "2030-01-01T03:00:00.000Z";
    const t = new InngestTestEngine({
      function: dailyRetention,
      events: [{ name: "watch/retention.armed", data: { at } }],
    });
    const retention = (overrides: Record<string, (() => unknown) | null> = {}) =>
      steps({
        "wait-retention": () => undefined,
        [STEP.prune]: () => ({ executions: 3, sends: 1 }),
        [STEP.armNextRetention]: () => undefined,
        ...overrides,
      });
    const sleep = await t.executeStep("wait-retention", { steps: retention({ "wait-retention": null }) });
    expect(sleep.step).toMatchObject({ op: "Sleep", name: at });
    const next = { name: "watch/retention.armed", data: { at: "2030-01-02T03:00:00.000Z" } };
    const sent = await captureSends(() =>
      t.executeStep(STEP.armNextRetention, { steps: retention({ [STEP.armNextRetention]: null }) }),
    );
    expect(sent).toContain(JSON.stringify({ id: `retention:${Date.parse(next.data.at)}`, ...next }));
    expect((await t.execute({ steps: retention() })).result).toEqual({ executions: 3, sends: 1, workflows: 0 });
  });

  it("limits concurrent runs from the same config as the embedded engine: in all, and per user", () => {
    const { agentRuns, perUser } = flowControl();
    for (const fn of [scheduledRun, requestedRun])
      expect((fn as unknown as { opts: { concurrency: unknown } }).opts.concurrency).toEqual([
        { limit: agentRuns },
        { key: "event.data.userId", limit: perUser },
      ]);
  });
});
