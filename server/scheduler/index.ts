/**
 * The one door between the API and whatever runs watches. The API decides *what* should happen (a watch
 * became active, was paused, a run was requested); the driver decides *how* (embedded durable engine or
 * Inngest). The driver is chosen in one place: `setScheduler` at server start.
 */
/** The watch and its owner (the engines' flow control is per user). */
export type Watch = { id: string; user_id: string };

export interface Scheduler {
  readonly name: string;
  /** The watch is active: make sure it runs at `at` (now or later). Replaces any earlier wake-up. */
  arm(watch: Watch, at: Date): Promise<void>;
  /** The watch was paused, completed or deleted: cancel its pending wake-up (`scheduledAt` is its old next_run). */
  disarm(taskId: string, scheduledAt: Date | null): Promise<void>;
  /** Start the given (pending) execution now. */
  runNow(watch: Watch, executionId: string): Promise<void>;
  /** Stop an open execution (force re-run, delete). */
  cancelRun(executionId: string): Promise<void>;
  /** Make sure the user's daily digest goes out at `at` (idempotent per user and time). */
  armDigest(userId: string, at: Date): Promise<void>;
  /** The user turned the digest off (or it moved): cancel the wake-up armed for `at`. */
  disarmDigest(userId: string, at: Date): Promise<void>;
  /** Make sure the daily retention job runs at `at` (idempotent per time, so once across replicas). */
  armRetention(at: Date): Promise<void>;
  /**
   * A held finding's owner sent it anyway: deliver the run's `task.condition_met` to `channels` (the watch's channel
   * types) and to the watch's followers (idempotent per execution).
   */
  sendFinding(executionId: string, channels: string[]): Promise<void>;
  /** "ok" when the driver is running. */
  health(): Promise<string>;
}

/** Until a driver is installed nothing runs; the API still records what was asked. */
const inert: Scheduler = {
  name: "none",
  arm: async () => {},
  disarm: async () => {},
  runNow: async () => {},
  cancelRun: async () => {},
  armDigest: async () => {},
  disarmDigest: async () => {},
  armRetention: async () => {},
  sendFinding: async () => {},
  health: async () => "not started",
};

const g = globalThis as unknown as { __watchScheduler?: Scheduler };

export const scheduler = (): Scheduler => g.__watchScheduler ?? inert;

export function setScheduler(driver: Scheduler | undefined) {
  g.__watchScheduler = driver;
}
