/** Wire shapes of watches ("tasks" in the API), executions and notification configs. */
import { z } from "zod";
import { env } from "../env";
import { text } from "../../lib/text";

/** A UUID; the anchored pattern and the length bound are in the OpenAPI document too. */
export const Id = z.guid().max(36);
export const Timestamp = z.iso.datetime({ offset: true });
export const TaskStateSchema = z.enum(["active", "paused", "completed"]);
export const ExecutionStatusSchema = z.enum(["pending", "running", "success", "failed", "cancelled"]);
import { CHANNELS, NotificationConfig, NotificationTypeSchema } from "../../channels/list";
import { VERDICT_STATES } from "./verdict";

export { NotificationConfig, NotificationTypeSchema };

/**
 * Notification configs are checked in the domain (400 `Invalid notification: …`, not 422), so the input
 * accepts any objects here and documents the real shape.
 */
export const NotificationInput = z
  .looseObject({})
  .meta({ description: CHANNELS.map((c) => c.schema.meta()?.id).join(", ") });
export const NotificationsInput = z
  .array(NotificationInput)
  .max(10)
  .meta({
    description: `Notification channels, at most one of each type (${CHANNELS.map((c) => c.type).join(", ")}); secrets are write-only: reads show them redacted, and sending the redacted value back keeps the stored one.`,
  });

export const Name = text().trim().min(1).max(200);
const Query = text().trim().min(1).max(2000);
const Condition = text().trim().min(1).max(4000);

/** Bounds of the agent's cadence, in minutes: the service's own floor (MIN_RUN_INTERVAL) and ceiling (30 days). */
export const cadenceFloor = () => Math.ceil(env.MIN_RUN_INTERVAL_MS / 60_000);
export const CADENCE_CEILING = 43_200;
const Minutes = () => z.number().int().min(cadenceFloor()).max(CADENCE_CEILING);

/** A watch's trust bounds unless it sets its own (the columns' defaults too). */
export const TRUST_DEFAULTS = { min_confidence: 0.6, min_sources: 1 };

/** How sure and how corroborated a finding must be before it is sent, and the cadence bounds. */
const trustAndCadence = {
  min_confidence: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .meta({ description: "Notify only at this confidence or above (default 0.6)" }),
  min_sources: z
    .number()
    .int()
    .min(1)
    .max(5)
    .optional()
    .meta({ description: "Notify only when this many independent sites back the finding (default 1)" }),
  min_interval_minutes: Minutes()
    .optional()
    .meta({ description: "The agent checks at most this often (default and floor: MIN_RUN_INTERVAL)" }),
  max_interval_minutes: Minutes()
    .optional()
    .meta({ description: "The agent checks at least this often (default and ceiling: 43200, 30 days)" }),
};

export const CADENCE_ORDER = "min_interval_minutes must not be greater than max_interval_minutes";

/** min ≤ max when both are given (an update also checks against the stored values). */
const cadenceOrdered = (v: { min_interval_minutes?: number; max_interval_minutes?: number }, ctx: z.RefinementCtx) => {
  if (
    v.min_interval_minutes !== undefined &&
    v.max_interval_minutes !== undefined &&
    v.min_interval_minutes > v.max_interval_minutes
  )
    ctx.addIssue({
      code: "custom",
      path: ["min_interval_minutes"],
      message: CADENCE_ORDER,
      input: v.min_interval_minutes,
    });
};

/**
 * A watch's definition: what it asks and how it is checked, beside its state, visibility and channels. Create takes
 * these (only the query is required), update any of them. Fork copies them, a failed update writes them back, the
 * definition history compares them and `watchctl export` writes them, each by this list, so a field added here is
 * carried by all of them (the CLI's file format fails to compile until it carries the field too).
 */
const definition = {
  name: Name.optional(),
  search_query: Query,
  condition_description: Condition.optional(),
  ...trustAndCadence,
};
export type DefinitionField = keyof typeof definition;
export const DEFINITION_FIELDS = Object.keys(definition) as DefinitionField[];

/** The definition fields of a row, an input or a view. */
export function pickDefinition<T extends Partial<Record<DefinitionField, unknown>>>(source: T) {
  return Object.fromEntries(DEFINITION_FIELDS.map((f) => [f, source[f]])) as Pick<T, DefinitionField & keyof T>;
}

export const CreateTaskInput = z
  .object({
    ...definition,
    state: z.enum(["active", "paused"]).optional(),
    run_immediately: z.boolean().optional(),
    notifications: NotificationsInput.optional(),
  })
  .strict()
  .superRefine(cadenceOrdered);

export const PreviewInput = z
  .object({
    search_query: Query,
    condition_description: Condition.optional(),
    min_confidence: trustAndCadence.min_confidence,
    min_sources: trustAndCadence.min_sources,
  })
  .strict();

export const UpdateTaskInput = z
  .object({
    id: Id,
    ...definition,
    search_query: Query.optional(),
    state: TaskStateSchema.optional(),
    notifications: NotificationsInput.optional(),
  })
  .strict()
  .superRefine(cadenceOrdered);

export const SourceSchema = z
  .object({
    url: z.string(),
    title: z.string(),
    domain: z.string().meta({
      description: "The site: registrable domain of the page (`news.example.co.uk` → `example.co.uk`); empty when none",
    }),
  })
  .meta({ id: "Source" });
export type Source = z.infer<typeof SourceSchema>;

export const PROGRESS_STEPS = ["search", "read", "decide", "notify"] as const;
export const ProgressSchema = z
  .object({
    at: Timestamp,
    step: z.enum(PROGRESS_STEPS),
    detail: z.string().meta({ description: "The search query, the page read, the decision, where it was sent" }),
  })
  .meta({ id: "ProgressStep" });
export type ProgressStep = z.infer<typeof ProgressSchema>;

export const GateSchema = z.object({ passed: z.boolean(), reason: z.string().nullable() }).meta({
  id: "Gate",
  description: "Whether a new met finding cleared the watch's confidence and corroboration bounds",
});

/**
 * What a successful run found, with the trust gate of a new finding. Checked when the run is recorded; older rows lack
 * the later fields, which read as their defaults.
 */
export const ExecutionResultSchema = z
  .object({
    condition_met: z.boolean(),
    answer: z.string().meta({ description: "Markdown" }),
    evidence: z.string(),
    confidence: z.number().min(0).max(1),
    model: z.string().optional().meta({ description: "Absent on public views" }),
    usage: z
      .object({ input_tokens: z.number().int(), output_tokens: z.number().int() })
      .optional()
      .meta({ description: "Absent on public views" }),
    duration_ms: z.number().int(),
    next_run_reason: z.string().default(""),
    gate: GateSchema.nullable().default(null).meta({ description: "null when the run had no new met finding" }),
    retracted_execution_id: Id.nullable()
      .default(null)
      .meta({ description: "The notified finding this run retracted" }),
  })
  .meta({ id: "ExecutionResult" });
export type ExecutionResult = z.input<typeof ExecutionResultSchema>;

export const NotificationContentSchema = z
  .object({ title: z.string(), markdown: z.string() })
  .meta({ id: "NotificationContent" });

export const ExecutionSchema = z
  .object({
    id: Id,
    task_id: Id,
    status: ExecutionStatusSchema,
    started_at: Timestamp,
    completed_at: Timestamp.nullable(),
    result: ExecutionResultSchema.nullable(),
    error_message: z.string().nullable(),
    notification: NotificationContentSchema.nullable(),
    grounding_sources: z.array(SourceSchema).nullable(),
    retracted_by_execution_id: Id.nullable().meta({
      description: "On a notified finding: the later run that retracted it",
    }),
    progress: z.array(ProgressSchema).optional().meta({
      description:
        "What the run did, written while it goes (searches, pages read, the decision, where it was sent); owner views only",
    }),
    created_at: Timestamp,
  })
  .meta({ id: "Execution" });

/** A finding's key as a path names it: the agent's words, any text. */
export const FindingKey = text().min(1).max(255);

export const FINDING_STATUSES = ["notified", "held", "retracted"] as const;
export const FindingSchema = z
  .object({
    key: z.string().meta({ description: "The agent's stable name for what it found" }),
    title: z.string(),
    answer: z.string().meta({ description: "Markdown: the latest answer that found it (and was not held back)" }),
    sources: z.array(SourceSchema),
    status: z.enum(FINDING_STATUSES).meta({
      description: "`held`: the watch's bounds kept it back (owner only); `retracted`: a later run withdrew it",
    }),
    gate_reason: z
      .string()
      .nullable()
      .meta({ description: "Why it was held (e.g. `1 independent source, 2 required`)" }),
    first_found_at: Timestamp,
    last_confirmed_at: Timestamp,
    confirmations: z.number().int().meta({ description: "Runs that found it, the first included" }),
    first_execution_id: Id,
    last_execution_id: Id,
    retracted_at: Timestamp.nullable(),
  })
  .meta({ id: "Finding", description: "One distinct thing the agent found; later runs that find it again confirm it" });
export type FindingView = z.infer<typeof FindingSchema>;

export const ResolutionSchema = z
  .object({
    status: z.enum(["watching", "met", "resolved"]),
    since: Timestamp.nullable().meta({ description: "When the standing finding was made (null while watching)" }),
    answer: z.string().nullable().meta({ description: "The standing finding's answer (Markdown)" }),
    sources: z.array(SourceSchema),
  })
  .meta({
    id: "Resolution",
    description:
      "The watch's verdict: `met` while the last notified finding stands (not retracted), `resolved` when the " +
      "watch is completed with such a finding standing, else `watching` (since and answer null, no sources)",
  });
export type Resolution = z.infer<typeof ResolutionSchema>;

export const VerdictSchema = z
  .object({
    state: z.enum(VERDICT_STATES).meta({
      description:
        "The one state the watch is in, the first that applies: `resolved` (completed with its finding standing), " +
        "`cant_check` (active, and its checks fail: 3 in a row, or every one so far), `held` (found, not sent: the " +
        "watch's bounds held it back; owner only), `met` (its last notified finding stands, paused or not), `paused` " +
        "(not checking: paused, or completed without a standing finding; the last answer is as of `as_of`), " +
        "`first_check` (no check has answered yet; one is running or pending), `not_yet` (checked, nothing found). " +
        "Anyone but the owner never sees `held`: the watch shows as it would without the held finding.",
    }),
    since: Timestamp.nullable().meta({
      description:
        "When this state began: met/resolved when the finding was made, held when it was found, paused when the " +
        "watch was paused or completed, cant_check when the first failed check of the streak finished, first_check " +
        "when the running check started (null while pending); null for not_yet",
    }),
    as_of: Timestamp.nullable().meta({
      description: "When the latest answer (`latest_answer`) was checked; null before any",
    }),
    running: z.boolean().meta({ description: "A check is under way now" }),
    failure: z
      .enum(["ours", "yours"])
      .nullable()
      .meta({
        description:
          "cant_check only: `ours` (the model or search provider, its quota, a timeout, the service's configuration: " +
          "Watch retries at `retry_at` and needs nothing from you) or `yours` (a site that cannot be read, a condition " +
          "that cannot be evaluated: `reason` says what to change)",
      }),
    retry_at: Timestamp.nullable().meta({ description: "cant_check only: when the next check (the retry) is due" }),
    reason: z
      .string()
      .nullable()
      .meta({
        description:
          "held: the gate's reason (e.g. `1 independent source, 2 required`); cant_check (owner views): what failed, " +
          "or what to change, in words; otherwise null",
      }),
  })
  .meta({
    id: "Verdict",
    description:
      "The watch's verdict as one state, decided in one place for every surface (pages, cards, badge, Open Graph " +
      "image, emails). `resolution` keeps the standing finding itself.",
  });

export const DELIVERY_STATES = ["delivered", "retrying", "failed"] as const;
export const DELIVERY_FAILURES = ["refused", "unreachable", "internal"] as const;
const DeliveryFailureSchema = z
  .enum(DELIVERY_FAILURES)
  .nullable()
  .meta({
    description:
      "Why it did not arrive: `refused` (the destination said no: HTTP 4xx or a redirect, or it cannot be sent to as " +
      "configured: an unconfirmed address, a private address), `unreachable` (HTTP 5xx, 408 or 429, a timeout, DNS, " +
      "a refused connection), `internal` (Watch itself: no email key, an email cap, an attempt cut short); null when " +
      "it arrived or is under way",
  });

export const DeliverySchema = z
  .object({
    channel: NotificationTypeSchema,
    label: z.string().meta({ description: "The channel's name as people read it (`Email`, `Slack`)" }),
    event: z.string().meta({ description: "Which notice (task.condition_met, task.condition_retracted, …)" }),
    state: z.enum(DELIVERY_STATES).meta({
      description:
        "`delivered` (the channel accepted it), `retrying` (not yet: the next attempt is due at `next_attempt_at`, " +
        "or one is under way when that is null), `failed` (no attempt is left; `failure` says why; " +
        "`POST /api/v1/notifications/sends/{send_id}/redeliver` sends it again)",
    }),
    failure: DeliveryFailureSchema,
    error: z.string().nullable().meta({ description: "The latest attempt's error, e.g. `HTTP 500`" }),
    attempts: z.number().int().meta({ description: "Attempts of this notice on this channel so far" }),
    last_attempt_at: Timestamp,
    next_attempt_at: Timestamp.nullable(),
    send_id: Id.meta({ description: "The latest attempt's send record" }),
  })
  .meta({ id: "Delivery", description: "What became of the watch's latest notice on one channel" });
export type DeliveryView = z.infer<typeof DeliverySchema>;

export const TaskSchema = z
  .object({
    id: Id,
    user_id: Id.nullable(),
    name: z.string(),
    search_query: z.string(),
    condition_description: z.string(),
    state: TaskStateSchema,
    next_run: Timestamp.nullable(),
    is_public: z.boolean(),
    view_count: z.number().int(),
    subscriber_count: z.number().int(),
    forked_from_task_id: Id.nullable(),
    last_known_state: z.record(z.string(), z.unknown()).nullable(),
    last_execution_id: Id.nullable(),
    last_execution: ExecutionSchema.nullable(),
    resolution: ResolutionSchema,
    verdict: VerdictSchema,
    latest_answer: z
      .string()
      .nullable()
      .meta({
        description:
          "The first sentence of the latest answer (plain text, at most 200 characters, cut on a word); null before " +
          "any. Anyone but the owner reads the latest answer not held back by the watch's bounds.",
      }),
    unseen: z
      .boolean()
      .optional()
      .meta({
        description:
          "Owner views: a finding or retraction is newer than the owner's last look at the watch (its dashboard page, " +
          "or `POST /api/v1/tasks/{id}/seen`)",
      }),
    answered: z
      .boolean()
      .optional()
      .meta({
        description:
          'Owner views: the owner answered "Answered — stop watching, or keep watching for changes?" for the standing ' +
          "finding (`POST /api/v1/tasks/{id}/keep-watching`, or completing the watch); a new finding asks again",
      }),
    delivery_failed: z.boolean().optional().meta({
      description: "Owner views: the latest notice failed on at least one channel (its retries spent)",
    }),
    delivery: z.array(DeliverySchema).optional().meta({
      description:
        "The owner's `GET /api/v1/tasks/{id}`: the latest notice on each channel it went to (empty before any notice)",
    }),
    min_confidence: z.number(),
    min_sources: z.number().int(),
    min_interval_minutes: z.number().int(),
    max_interval_minutes: z.number().int(),
    notifications: z.array(NotificationConfig),
    notification_email: z.string().nullable(),
    webhook_url: z.string().nullable(),
    state_changed_at: Timestamp,
    created_at: Timestamp,
    updated_at: Timestamp.nullable(),
    owner: z.object({ username: z.string().nullable() }).optional().meta({ description: "Present on non-owner views" }),
  })
  .meta({ id: "Task" });
export type TaskView = z.infer<typeof TaskSchema>;

export const CreatedTaskSchema = TaskSchema.extend({ immediate_execution_error: z.string().nullable() }).meta({
  id: "CreatedTask",
});

export const SendRecordSchema = z
  .object({
    id: Id,
    user_id: Id,
    task_id: Id.nullable().meta({ description: "Null for a daily digest, and for a test of a channel no watch has" }),
    execution_id: Id.nullable().meta({
      description: "The run that triggered the send; null for a test send or an address verification",
    }),
    event: z.string().meta({
      description:
        "What was sent: task.condition_met, task.condition_retracted, task.run_failed, task.run_recovered, account.budget_exhausted, task.test, email.verification, follow.confirmation, digest.daily",
    }),
    attempt: z.number().int().meta({ description: "1 for the first attempt, 2.. for retries" }),
    recipient: z.string(),
    notification_type: NotificationTypeSchema,
    status: z.enum(["sent", "failed", "skipped"]),
    error_message: z.string().nullable(),
    failure: DeliveryFailureSchema,
    next_attempt_at: Timestamp.nullable().meta({
      description: "When the next attempt of this notice on this channel is due; null when none is planned",
    }),
    created_at: Timestamp,
  })
  .meta({ id: "NotificationSend" });

/** How a test message went: recorded in the history as a `task.test` send. */
export const TestSendSchema = z
  .object({
    status: z.enum(["sent", "failed", "skipped"]).meta({
      description: "`sent`: the channel accepted it; `skipped`: held back (an address not confirmed yet, an email cap)",
    }),
    failure: DeliveryFailureSchema,
    error_message: z
      .string()
      .nullable()
      .meta({ description: "Why it was not sent (the destination's answer or Watch's reason); never a secret" }),
  })
  .meta({ id: "TestSend" });

/** A page of findings: 1–100, 20 unless said. */
export const FindingPaging = {
  limit: z.number().int().min(1).max(100).default(20),
  offset: z.number().int().min(0).default(0),
};

export const TotalCount = z.object({
  "X-Total-Count": z.string().max(20).meta({ description: "How many there are in all" }),
});

export const LIST_SORTS = ["attention", "created", "updated", "name"] as const;
export type ListSort = (typeof LIST_SORTS)[number];
/** The watch's own state (`active`, `paused`, `completed`), then what it found. */
export const LIST_STATES = ["active", "paused", "completed", "met", "watching", "held", "failing"] as const;
export type ListState = (typeof LIST_STATES)[number];

export const ListTasksInput = z.object({
  sort: z
    .enum(LIST_SORTS)
    .optional()
    .meta({
      description:
        "`created` (default: newest first), `attention` (the dashboard's order: a failing watch or one whose latest " +
        "notice failed, then watches with findings you have not seen, newest first, then the other watches with " +
        "findings, newest first, then the rest by next check), `updated` (last edited first), `name` (A to Z)",
    }),
  q: text()
    .max(200)
    .optional()
    .meta({ description: "Words that must all appear in the name, query or condition (any case)" }),
  state: z
    .enum(LIST_STATES)
    .optional()
    .meta({
      description:
        "The watch's own state: `active`, `paused`, `completed`; or what it found: `met` (its last notified finding " +
        "stands, whatever its state), `held` (its latest answer found something its bounds held back), `failing` (3 " +
        "failed checks in a row, or its latest notice failed on a channel), `watching` (active and none of those)",
    }),
  limit: z.number().int().min(1).max(500).optional().meta({ description: "Page size. Unset: every watch" }),
  offset: z.number().int().min(0).optional(),
});
export type ListTasksQuery = z.infer<typeof ListTasksInput>;

export const Paging = {
  limit: z.number().int().min(1).max(500).default(50),
  offset: z.number().int().min(0).default(0),
};
