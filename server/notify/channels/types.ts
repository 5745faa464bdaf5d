/**
 * What a channel is to the server: the client-side spec (fields, secrets, Apprise URLs, help) plus the zod schema that
 * validates its config and documents it in OpenAPI, its domain checks, and how a run's notice reaches it (one attempt
 * at a time, under the retry policy it declares). One module per channel beside this file; ./index lists them.
 */
import type { z } from "zod";
import type { ChannelSpec } from "../../../client/channels/spec";
import type { Task, User } from "../../db";
import type { DeliveryOutcome } from "../deliveries";
import type { Notice } from "../events";

/** When a notice may go: now, after the recipient's quiet hours, in their daily digest, or not at all. */
export type DeliveryPlan = { kind: "now" | "digest" | "none" } | { kind: "later"; at: string };

export type TestResult = { status: "sent" | "failed" | "skipped"; error: string | null };

/** The watch a test send is about. */
export type TestTask = Task;

type Config<T extends string> = { type: T } & Record<string, unknown>;

export type Channel<
  T extends string = string,
  S extends z.ZodType<Config<T>> = z.ZodType<Config<T>>,
  C extends z.output<S> = z.output<S>,
> = {
  type: T;
  spec: ChannelSpec & { type: T };
  /** The wire shape (input and reads; OpenAPI documents it). */
  schema: S;
  /** Domain checks past the shape, and normalisation (a message for `Invalid notification: …` on failure). */
  check(config: C): C;
  /** Waits between attempts: attempt n + 1 follows attempt n after `retryDelaysMs[n - 1]` (a 429's wait within it). */
  retryDelaysMs: readonly number[];
  /** A channel that waits for quiet hours or goes into a digest plans each notice first (a step of its own). */
  plan?(executionId: string, notice: Notice, followId?: string): Promise<DeliveryPlan>;
  /** One attempt of a run's notice, claimed and recorded once (also across crashes). */
  deliver(executionId: string, notice: Notice, attempt: number, followId?: string): Promise<DeliveryOutcome>;
  /** "Send test notification": a `task.test` send to the config, recorded in the history. */
  test(user: User, task: TestTask, config: C): Promise<TestResult>;
  /** Step ids kept from before there was a registry, so a delivery in flight across that upgrade replays in place. */
  stepIds?: { attempt(attempt: number): string; wait(attempt: number): string };
};

export const defineChannel = <const T extends string, S extends z.ZodType<Config<T>>>(c: Channel<T, S>) => c;

/** A watch channel's row as a config: its type and its stored fields (a follower's are stored as configs already). */
export const storedConfig = (row: { type: string; config: unknown }) => ({
  ...((row.config as Record<string, unknown> | null) ?? {}),
  type: row.type,
});
