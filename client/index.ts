/**
 * The Watch SDK: typed calls generated from the server's OpenAPI document (openapi-fetch over
 * client/openapi.d.ts), typed errors, retries for 429/503 honouring Retry-After, and per-request timeouts.
 *
 *   const watch = createClient();                      // SERVICE_API_KEY / SERVICE_URL / SERVICE_NOAUTH
 *   await watch.watch("Postgres 19 beta").when("a beta release is announced").notify({ email: "me@x.dev" }).create();
 */
import createFetchClient from "openapi-fetch";
import { errorFor, retryAfterSeconds } from "./errors";
import type { components, paths } from "./openapi";
import { parseApprise } from "../channels/apprise";

export * from "./errors";
export { verifyWebhook } from "./webhooks";
export { AppriseError, CHANNELS, parseApprise, readApprise } from "../channels";

export type Task = components["schemas"]["Task"];
export type CreatedTask = components["schemas"]["CreatedTask"];
export type Execution = components["schemas"]["Execution"];
/** A watch's standing finding: `watching`, `met` (since, answer, sources) or `resolved`. */
export type Resolution = components["schemas"]["Resolution"];
/**
 * A watch's verdict as one state: `met`, `not_yet`, `held` (owner only), `paused`, `cant_check` (with `failure`
 * `ours` or `yours` and `retry_at`), `first_check` or `resolved`.
 */
export type Verdict = components["schemas"]["Verdict"];
/** What became of a watch's latest notice on one channel: `delivered`, `retrying` or `failed` (with `failure`). */
export type Delivery = components["schemas"]["Delivery"];
export type Finding = components["schemas"]["Finding"];
/** A run's result in words ("met", "met · held", "not met", "failed", "running", "never run"), as the dashboard says it. */
export { outcomeOf, type Outcome } from "../lib/outcome";
export type NotificationSend = components["schemas"]["NotificationSend"];
export type SendEvent = NonNullable<
  NonNullable<paths["/api/v1/notifications/sends"]["get"]["parameters"]["query"]>["event"]
>;
export type User = components["schemas"]["User"];
export type ApiKey = components["schemas"]["ApiKey"];
export type TaskState = Task["state"];
type ListQuery = NonNullable<paths["/api/v1/tasks"]["get"]["parameters"]["query"]>;
/** The list's filter: a watch's own state (`active`, `paused`, `completed`) or what it found (`met`, `watching`, `held`, `failing`). */
export type ListState = NonNullable<ListQuery["state"]>;
/** The list's order: `created` (default, newest first), `attention` (the dashboard's), `updated`, `name`. */
export type ListSort = NonNullable<ListQuery["sort"]>;
/** What `watches.list` and `watches.page` take: order, words, state, and a page. */
export type ListOptions = { sort?: ListSort; q?: string; state?: ListState; limit?: number; offset?: number };
export type CreateTaskInput = NonNullable<paths["/api/v1/tasks"]["post"]["requestBody"]>["content"]["application/json"];
export type UpdateTaskInput = Omit<
  NonNullable<paths["/api/v1/tasks/{id}"]["put"]["requestBody"]>["content"]["application/json"],
  "id"
>;
export type Settings = components["schemas"]["Settings"];
/** How a test message went: `sent`, or `failed`/`skipped` with the failure's class and why. */
export type TestSend = components["schemas"]["TestSend"];
export type SettingsInput = NonNullable<
  paths["/api/v1/users/me/settings"]["patch"]["requestBody"]
>["content"]["application/json"];
export type PreviewInput = NonNullable<
  paths["/api/v1/tasks/preview"]["post"]["requestBody"]
>["content"]["application/json"];
/** A channel as a watch's reads show it (secrets redacted). */
export type Channel = Task["notifications"][number];
/** A channel as it is written: the same, with the fields that have defaults (a webhook's method and headers) optional. */
export type Notification = Channel extends infer C
  ? C extends { method: unknown }
    ? Omit<C, "method" | "headers"> & Partial<Pick<C, Extract<keyof C, "method" | "headers">>>
    : C
  : never;
export type NotificationType = Channel["type"];

/** Where hosted Watch lives; SERVICE_URL overrides it, SERVICE_NOAUTH=1 defaults to the local development server. */
export const HOSTED_URL = "https://watch.dev";
export const LOCAL_URL = "http://localhost:8000";

export type ClientOptions = {
  /** An API key (`sk_…`); default SERVICE_API_KEY. */
  apiKey?: string;
  /** Default SERVICE_URL, else http://localhost:8000 with SERVICE_NOAUTH=1, else the hosted service. */
  baseUrl?: string;
  /** Send no credentials (the local development server with SERVICE_NOAUTH=1); default SERVICE_NOAUTH. */
  noauth?: boolean;
  /** Per attempt; default 30 s. */
  timeoutMs?: number;
  /** Retries of 429 and 503 answers (and network errors of idempotent requests); default 3. */
  maxRetries?: number;
  fetch?: typeof fetch;
};

export const envFlag = (v: string | undefined) => v === "1" || v === "true";

export function resolveConfig(options: ClientOptions = {}, env: Record<string, string | undefined> = process.env) {
  const noauth = options.noauth ?? envFlag(env.SERVICE_NOAUTH);
  const baseUrl = (options.baseUrl ?? env.SERVICE_URL ?? (noauth ? LOCAL_URL : HOSTED_URL)).replace(/\/+$/, "");
  const apiKey = noauth ? undefined : (options.apiKey ?? env.SERVICE_API_KEY);
  return { baseUrl, apiKey, noauth, timeoutMs: options.timeoutMs ?? 30_000, maxRetries: options.maxRetries ?? 3 };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const IDEMPOTENT = new Set(["GET", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"]);

/** fetch with credentials, a timeout per attempt and retries with backoff (Retry-After when the server gives one). */
export function resilientFetch(config: ReturnType<typeof resolveConfig>, base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    if (config.apiKey) request.headers.set("authorization", `Bearer ${config.apiKey}`);
    for (let attempt = 0; ; attempt++) {
      const backoff = Math.min(8_000, 250 * 2 ** attempt);
      let response: Response;
      try {
        response = await base(request.clone(), { signal: AbortSignal.timeout(config.timeoutMs) });
      } catch (e) {
        if (attempt >= config.maxRetries || !IDEMPOTENT.has(request.method)) throw e;
        await sleep(backoff);
        continue;
      }
      if ((response.status !== 429 && response.status !== 503) || attempt >= config.maxRetries) return response;
      const wait = retryAfterSeconds(response.headers);
      await response.body?.cancel();
      await sleep(wait === null ? backoff : Math.min(wait * 1000, 60_000));
    }
  };
}

type Result<T> = { data?: T; error?: unknown; response: Response };

async function unwrap<T>(call: Promise<Result<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok)
    throw errorFor(response.status, (error as { detail?: unknown } | undefined)?.detail ?? error, response.headers);
  return data as T;
}

export function createClient(options: ClientOptions = {}) {
  const config = resolveConfig(options);
  const api = createFetchClient<paths>({
    baseUrl: config.baseUrl,
    fetch: resilientFetch(config, options.fetch ?? globalThis.fetch),
  });
  const byId = (id: string) => ({ params: { path: { id } } });

  const watches = {
    create: (input: CreateTaskInput) => unwrap(api.POST("/api/v1/tasks", { body: input })),
    /**
     * Your watches, newest first unless `sort` says (`attention`: failing ones, then unseen findings, …), those with
     * every word of `q` and in `state`: all of them, or `limit` of them from `offset`.
     */
    list: (filter: ListOptions = {}) => unwrap(api.GET("/api/v1/tasks", { params: { query: filter } })),
    /** A page of your watches and how many match in all (the server's X-Total-Count). */
    page: async (filter: ListOptions & { limit: number }) => {
      const call = api.GET("/api/v1/tasks", { params: { query: filter } });
      const items = await unwrap(call);
      return { items, total: Number((await call).response.headers.get("x-total-count") ?? items.length) };
    },
    /** A watch, with its verdict and (yours) what became of its latest notice on each channel (`delivery`). */
    get: (id: string) => unwrap(api.GET("/api/v1/tasks/{id}", byId(id))),
    /** Marks a watch seen, as opening its page does: its findings so far are no longer `unseen`. */
    seen: (id: string) => unwrap(api.POST("/api/v1/tasks/{id}/seen", byId(id))).then(() => undefined),
    /** Answers "stop watching, or keep watching?" with keep watching for the standing finding (`answered`). */
    keepWatching: (id: string) => unwrap(api.POST("/api/v1/tasks/{id}/keep-watching", byId(id))).then(() => undefined),
    update: (id: string, changes: UpdateTaskInput) =>
      unwrap(api.PUT("/api/v1/tasks/{id}", { ...byId(id), body: changes })),
    delete: (id: string) => unwrap(api.DELETE("/api/v1/tasks/{id}", byId(id))).then(() => undefined),
    execute: (id: string, opts: { force?: boolean } = {}) =>
      unwrap(
        api.POST("/api/v1/tasks/{id}/execute", { params: { path: { id }, query: opts.force ? { force: true } : {} } }),
      ),
    executions: (id: string, opts: { limit?: number; offset?: number; status?: Execution["status"] } = {}) =>
      unwrap(api.GET("/api/v1/tasks/{id}/executions", { params: { path: { id }, query: opts } })),
    /** One entry per distinct finding, newest first, with how many checks confirmed it (held ones included). */
    findings: (id: string, opts: { limit?: number; offset?: number } = {}) =>
      unwrap(api.GET("/api/v1/tasks/{id}/findings", { params: { path: { id }, query: opts } })),
    /**
     * Sends a held finding anyway ("Send it anyway"): notified to the watch's channels and followers as a run that
     * cleared the bounds would, and public like any notified finding. 409 when it is not held (sent already, retracted).
     */
    sendFinding: (id: string, key: string) =>
      unwrap(api.POST("/api/v1/tasks/{id}/findings/{key}/send", { params: { path: { id, key } } })),
    /** Each check whose condition was met, one per run. */
    metExecutions: (id: string, opts: { limit?: number; offset?: number } = {}) =>
      unwrap(api.GET("/api/v1/tasks/{id}/notifications", { params: { path: { id }, query: opts } })),
    fork: (id: string, opts: { name?: string } = {}) =>
      unwrap(api.POST("/api/v1/tasks/{id}/fork", { ...byId(id), body: opts })),
    setVisibility: (id: string, isPublic: boolean) =>
      unwrap(api.PATCH("/api/v1/tasks/{id}/visibility", { ...byId(id), body: { is_public: isPublic } })),
    testNotification: (id: string, type: NotificationType) =>
      unwrap(api.POST("/api/v1/tasks/{id}/notifications/test", { ...byId(id), body: { type } })),
    history: (id: string, opts: { limit?: number; offset?: number } = {}) =>
      unwrap(api.GET("/api/v1/tasks/{id}/history", { params: { path: { id }, query: opts } })),
    /** What the agent would answer now (saves nothing; counts one run against the monthly budget). */
    preview: (input: PreviewInput) => unwrap(api.POST("/api/v1/tasks/preview", { body: input })),
  };

  return {
    config,
    watches,
    notifications: {
      sends: (
        filter: {
          notification_type?: NotificationType;
          task_id?: string;
          event?: SendEvent;
          limit?: number;
          offset?: number;
        } = {},
      ) => unwrap(api.GET("/api/v1/notifications/sends", { params: { query: filter } })),
      /** Sends a run's notice again now on the send's channel, any type (a webhook: same webhook-id); the new attempt's record. */
      redeliver: (sendId: string) => unwrap(api.POST("/api/v1/notifications/sends/{id}/redeliver", byId(sendId))),
      /**
       * Sends a test message to a channel before it is saved (validated as a save; 10 a minute). `taskId`: about that
       * watch (yours, or one you follow), whose stored secrets a redacted one stands for; `name`: else the watch's name.
       */
      test: (notification: Notification, opts: { taskId?: string; name?: string } = {}) =>
        unwrap(
          api.POST("/api/v1/notifications/test", {
            body: { notification, task_id: opts.taskId, name: opts.name },
          }),
        ),
    },
    apiKeys: {
      create: (name: string) => unwrap(api.POST("/auth/api-keys", { body: { name } })),
      list: () => unwrap(api.GET("/auth/api-keys")),
      revoke: (id: string) => unwrap(api.DELETE("/auth/api-keys/{id}", byId(id))),
    },
    me: () => unwrap(api.GET("/auth/me")),
    settings: {
      get: () => unwrap(api.GET("/auth/me")).then((u) => u.settings),
      /** Time zone, quiet hours (`null` to clear) and the daily digest; answers the updated settings. */
      update: (changes: SettingsInput) =>
        unwrap(api.PATCH("/api/v1/users/me/settings", { body: changes })).then((u) => u.settings),
    },
    follows: {
      /** Follow a public watch with your own channels (again: replaces them). */
      follow: (taskId: string, notifications: Notification[]) =>
        unwrap(api.POST("/api/v1/tasks/{id}/follow", { ...byId(taskId), body: { notifications } })),
      unfollow: (taskId: string) => unwrap(api.DELETE("/api/v1/tasks/{id}/follow", byId(taskId))).then(() => undefined),
      list: () => unwrap(api.GET("/api/v1/follows")),
      /** Anyone, without an account: a confirmation email goes to `email` (the answer is the same either way). */
      byEmail: (taskId: string, email: string) =>
        unwrap(api.POST("/api/v1/public/tasks/id/{id}/follow", { ...byId(taskId), body: { email } })),
    },
    usage: {
      get: () => unwrap(api.GET("/api/v1/usage")),
      byTask: (opts: { limit?: number } = {}) => unwrap(api.GET("/api/v1/usage/tasks", { params: { query: opts } })),
    },
    webhookSecret: {
      get: () => unwrap(api.GET("/api/v1/webhooks/secret")).then((r) => r.secret),
      /** The secret, and until when the previous one still signs (null: no rotation overlap running). */
      details: () => unwrap(api.GET("/api/v1/webhooks/secret")),
      /** A new secret; the old one keeps signing beside it for `overlapHours` (default 24, 0 to 72). */
      rotate: (opts: { overlapHours?: number } = {}) =>
        unwrap(api.POST("/api/v1/webhooks/secret/rotate", { body: { overlap_hours: opts.overlapHours ?? 24 } })).then(
          (r) => r.secret,
        ),
    },
    /** Anyone's public watches, no credentials needed; and the addresses to share one by. */
    public: {
      /** A public watch as anyone sees it, with its verdict (`resolution`); counts a view. */
      get: (id: string) => unwrap(api.GET("/api/v1/public/tasks/id/{id}", byId(id))),
      /** A public watch's findings: notified and retracted ones, newest first. */
      findings: (id: string, opts: { limit?: number; offset?: number } = {}) =>
        unwrap(api.GET("/api/v1/public/tasks/id/{id}/findings", { params: { path: { id }, query: opts } })),
      pageUrl: (id: string) => `${config.baseUrl}/w/${id}`,
      /** The live SVG badge of the verdict, for a README: `[![Watch](badgeUrl)](pageUrl)`. */
      badgeUrl: (id: string) => `${config.baseUrl}/api/v1/public/tasks/id/${id}/badge.svg`,
      feedUrl: (id: string, format: "json" | "rss" = "json") =>
        `${config.baseUrl}/api/v1/public/tasks/id/${id}/${format === "json" ? "feed.json" : "rss"}`,
    },
    /** Fluent creation: `watch("query").when("condition").notify({ email }).named("…").paused().create()`. */
    watch: (query: string) => new WatchBuilder(watches.create, query),
  };
}

export type WatchClient = ReturnType<typeof createClient>;

export class WatchBuilder {
  private input: CreateTaskInput;
  constructor(
    private readonly submit: (input: CreateTaskInput) => Promise<CreatedTask>,
    query: string,
  ) {
    this.input = { search_query: query };
  }
  when(condition: string) {
    this.input.condition_description = condition;
    return this;
  }
  named(name: string) {
    this.input.name = name;
    return this;
  }
  /**
   * The watch's channels: an email address, a webhook, and any channel as its config or as an Apprise URL
   * (`slack://…`, `discord://…`, `tgram://…`, `ntfy://…`, `workflows://…`, `mmosts://…`, `gchat://…`, `matrixs://…`,
   * `pover://…`, `gotifys://…`, `apprises://…`) or the service's own URL.
   */
  notify(channels: {
    email?: string;
    webhook?: string | { url: string; method?: "POST" | "PUT" | "PATCH"; headers?: Record<string, string> };
    channels?: (Notification | string)[];
  }) {
    const list: Notification[] = (channels.channels ?? []).map((c) =>
      typeof c === "string" ? (parseApprise(c) as Notification) : c,
    );
    if (channels.email) list.push({ type: "email", address: channels.email });
    if (channels.webhook)
      list.push({
        type: "webhook",
        ...(typeof channels.webhook === "string" ? { url: channels.webhook } : channels.webhook),
      });
    this.input.notifications = list;
    return this;
  }
  paused(paused = true) {
    this.input.state = paused ? "paused" : "active";
    return this;
  }
  runNow(run = true) {
    this.input.run_immediately = run;
    return this;
  }
  /** Notify only for findings at least this confident, backed by at least this many independent sites. */
  trust(bounds: { minConfidence?: number; minSources?: number }) {
    this.input.min_confidence = bounds.minConfidence;
    this.input.min_sources = bounds.minSources;
    return this;
  }
  /** Let the agent check at most every `minMinutes` and at least every `maxMinutes`. */
  cadence(bounds: { minMinutes?: number; maxMinutes?: number }) {
    this.input.min_interval_minutes = bounds.minMinutes;
    this.input.max_interval_minutes = bounds.maxMinutes;
    return this;
  }
  create() {
    return this.submit(this.input);
  }
}
