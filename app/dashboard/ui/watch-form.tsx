"use client";
import { useRouter } from "next/navigation";
import { useState, type FormEvent, type ReactNode } from "react";
import { toast } from "sonner";
import type { NotificationConfig } from "@/server/tasks/schemas";
import { OutcomePill, Pill } from "../../ui/pill";
import { Time } from "../../ui/time";
import { sureness } from "./format";
import { renderPreview, type RenderedPreview } from "./render-preview";
import { errorMessage, fieldErrors, trpc } from "./trpc";
import type { ChannelConfig } from "@/channels";
import { TestConfig } from "./actions";
import { ChannelEditor } from "./channel-editor";
import { isEdited } from "./edited-channels";

export type WatchFormValues = {
  id?: string;
  name: string;
  search_query: string;
  condition_description: string;
  /** Whether the email channel is on, and its address (a new watch: on, with the account's address). */
  email_on: boolean;
  email: string;
  webhook_url: string;
  webhook_method: "POST" | "PUT" | "PATCH";
  webhook_headers?: Record<string, string>;
  /** Chat and push channels (./channel-editor), as reads show them. */
  channels: ChannelConfig[];
  min_confidence: number;
  min_sources: number;
  min_interval_minutes: number;
  max_interval_minutes: number;
};

const INTERVALS: [number, string][] = [
  [5, "5 minutes"],
  [15, "15 minutes"],
  [60, "hour"],
  [360, "6 hours"],
  [1440, "day"],
  [10_080, "7 days"],
  [43_200, "30 days"],
];
/** The presets the server accepts (from its floor), and the watch's own value when it is not one of them. */
const intervalOptions = (current: number, floor: number) =>
  [
    ...INTERVALS.filter(([m]) => m >= floor),
    ...(INTERVALS.some(([m]) => m === current) ? [] : [[current, `${current} minutes`] as [number, string]]),
  ].sort((a, b) => a[0] - b[0]);

type Preview = Awaited<ReturnType<typeof trpc.tasks.preview.mutate>>;

const NO_CHANNEL_WARNING =
  "Nobody will be notified: with no channel on, findings only appear on the watch's page and in the API.";

/**
 * Create (no id) or edit a watch. Errors come from the API and are shown next to their fields. The account's
 * address is the default channel (`accountEmail`); with every channel off, the form says nobody will hear.
 */
export function WatchForm({
  initial,
  cadenceFloor,
  accountEmail,
}: {
  initial: WatchFormValues;
  cadenceFloor: number;
  accountEmail: string;
}) {
  const router = useRouter();
  const editing = !!initial.id;
  const [v, setV] = useState(initial);
  const [paused, setPaused] = useState(false);
  const [runNow, setRunNow] = useState(true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<{ result: Preview; rendered: RenderedPreview | null } | null>(null);
  const [previewing, setPreviewing] = useState(false);
  const set = (k: keyof WatchFormValues) => (e: { target: { value: string } }) => setV({ ...v, [k]: e.target.value });
  const setNumber =
    (k: keyof WatchFormValues, scale = 1) =>
    (e: { target: { value: string } }) =>
      setV({ ...v, [k]: Number(e.target.value) / scale });
  const emailOn = v.email_on && !!v.email.trim();
  const noChannel = !emailOn && !v.webhook_url.trim() && !v.channels.length;
  /** The email and webhook channels as they stand in the form (saved on submit, tried by Send test). */
  const email: NotificationConfig | null = emailOn ? { type: "email", address: v.email.trim() } : null;
  const webhook: NotificationConfig | null = v.webhook_url.trim()
    ? { type: "webhook", url: v.webhook_url.trim(), method: v.webhook_method, headers: v.webhook_headers ?? {} }
    : null;
  const testAs = { taskId: initial.id, name: v.name || v.search_query };

  async function runPreview() {
    if (!v.search_query.trim()) return setErrors({ search_query: "Tell the agent what to search for." });
    setPreviewing(true);
    setPreview(null);
    try {
      const result = await trpc.tasks.preview.mutate({
        search_query: v.search_query.trim(),
        condition_description: v.condition_description.trim() || undefined,
        min_confidence: v.min_confidence,
        min_sources: v.min_sources,
      });
      const rendered = await renderPreview({ answer: result.answer, sources: result.sources }).catch(() => null);
      setPreview({ result, rendered });
    } catch (err) {
      toast.error(errorMessage(err));
    } finally {
      setPreviewing(false);
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!v.search_query.trim()) return setErrors({ search_query: "Tell the agent what to search for." });
    const notifications = [email, webhook, ...(v.channels as NotificationConfig[])].filter((n) => n !== null);
    const fields = {
      // The API's default name is a placeholder ("New Monitor"); in the dashboard the query names the watch.
      name: v.name.trim() || v.search_query.trim().slice(0, 200),
      search_query: v.search_query.trim(),
      condition_description: v.condition_description.trim() || (editing ? v.search_query.trim() : undefined),
      notifications,
      min_confidence: v.min_confidence,
      min_sources: v.min_sources,
      min_interval_minutes: v.min_interval_minutes,
      max_interval_minutes: v.max_interval_minutes,
    };
    const unheard = notifications.length ? "" : " Nobody is notified: findings appear on its page.";
    setBusy(true);
    setErrors({});
    try {
      if (initial.id) {
        await trpc.tasks.update.mutate({ id: initial.id, ...fields });
        toast.success(`Watch saved.${unheard}`);
        router.push(`/dashboard/w/${initial.id}`);
      } else {
        const task = await trpc.tasks.create.mutate({
          ...fields,
          state: paused ? "paused" : "active",
          run_immediately: !paused && runNow,
        });
        if (task.immediate_execution_error)
          toast.error(`Created, but the first check could not start: ${task.immediate_execution_error}`);
        else toast.success(`${paused ? "Watch created (paused)." : "Watch created."}${unheard}`);
        router.push(`/dashboard/w/${task.id}`);
      }
      router.refresh();
    } catch (err) {
      const byField = fieldErrors(err);
      const message = errorMessage(err);
      if (/^Invalid notification/i.test(message))
        byField[
          isEdited({ type: /^Invalid notification: (\w+)/i.exec(message)?.[1] ?? "" })
            ? "channels"
            : /webhook|url|method|header/i.test(message)
              ? "webhook"
              : "email"
        ] = message;
      setErrors(byField);
      toast.error(message);
    } finally {
      setBusy(false);
    }
  }

  const field = (name: string, label: string, input: ReactNode, hint?: ReactNode) => (
    <div className="field">
      <label htmlFor={name}>{label}</label>
      {input}
      {errors[name] ? (
        <p className="field-error" id={`${name}-error`} role="alert">
          {errors[name]}
        </p>
      ) : hint ? (
        <p className="hint" id={`${name}-hint`}>
          {hint}
        </p>
      ) : null}
    </div>
  );
  const described = (name: string) => ({
    "aria-invalid": !!errors[name] || undefined,
    "aria-describedby": errors[name] ? `${name}-error` : `${name}-hint`,
  });

  return (
    <form className="form" onSubmit={submit} noValidate>
      <fieldset>
        <legend>What to watch</legend>
        {field(
          "search_query",
          "What should the agent look for?",
          <input
            id="search_query"
            value={v.search_query}
            onChange={set("search_query")}
            required
            maxLength={2000}
            autoFocus={!editing}
            placeholder="PostgreSQL 19 beta release"
            {...described("search_query")}
          />,
          "What the agent searches the web for.",
        )}
        {field(
          "condition_description",
          "Tell me when…",
          <textarea
            id="condition_description"
            rows={2}
            value={v.condition_description}
            onChange={set("condition_description")}
            maxLength={4000}
            placeholder={v.search_query || "a beta release is announced"}
            {...described("condition_description")}
          />,
          "The condition that counts as news. Defaults to the search query.",
        )}
        {field(
          "name",
          "Name",
          <input
            id="name"
            value={v.name}
            onChange={set("name")}
            maxLength={200}
            placeholder={v.search_query.slice(0, 60) || "Optional"}
            {...described("name")}
          />,
          "Optional; defaults to the query.",
        )}
      </fieldset>

      <section className="card preview" aria-labelledby="preview-title" aria-live="polite">
        <div className="spread">
          <div>
            <h2 id="preview-title">What would the agent say now?</h2>
            <p className="hint">
              Runs one check without saving anything, so you can adjust the wording first. It counts toward your monthly
              checks.
            </p>
          </div>
          <button type="button" className="secondary" onClick={runPreview} disabled={previewing}>
            {previewing ? (
              <>
                <span className="spinner" aria-hidden /> Checking…
              </>
            ) : (
              "Preview"
            )}
          </button>
        </div>
        {preview ? <PreviewResult preview={preview.result} rendered={preview.rendered} /> : null}
      </section>

      <fieldset>
        <legend>Notify me</legend>
        <div className="channel">
          <input
            id="email_on"
            type="checkbox"
            checked={v.email_on}
            onChange={(e) => setV({ ...v, email_on: e.target.checked, email: v.email || accountEmail })}
          />
          <div className="channel-body">
            <label htmlFor="email_on">Email</label>
            <div className="channel-inputs">
              <input
                id="email"
                type="email"
                aria-label="Email address"
                value={v.email}
                onChange={set("email")}
                disabled={!v.email_on}
                autoComplete="email"
                placeholder={accountEmail}
                {...described("email")}
              />
              <TestConfig config={email} {...testAs} />
            </div>
            {errors.email ? (
              <p className="field-error" id="email-error" role="alert">
                {errors.email}
              </p>
            ) : (
              <p className="hint" id="email-hint">
                {v.email.trim().toLowerCase() === accountEmail.toLowerCase()
                  ? "Your account's address."
                  : "Another address gets a confirmation link first."}
              </p>
            )}
          </div>
        </div>
        {field(
          "webhook",
          "Webhook URL",
          <div className="channel-inputs">
            <input
              id="webhook"
              type="url"
              value={v.webhook_url}
              onChange={set("webhook_url")}
              placeholder="https://example.com/hooks/watch"
              {...described("webhook")}
            />
            <select aria-label="Webhook method" value={v.webhook_method} onChange={set("webhook_method")}>
              <option>POST</option>
              <option>PUT</option>
              <option>PATCH</option>
            </select>
            <TestConfig config={webhook} {...testAs} />
          </div>,
          "Optional. Signed with Standard Webhooks; the secret is in Settings → Developers.",
        )}
        <ChannelEditor
          value={v.channels}
          onChange={(channels) => setV({ ...v, channels })}
          {...testAs}
          error={errors.channels}
        />
        {noChannel ? (
          <p className="notice small" data-tone="warn" data-testid="no-channel">
            {NO_CHANNEL_WARNING}
          </p>
        ) : null}
      </fieldset>

      <fieldset>
        <legend>When to tell me, how often to check</legend>
        <p className="hint">
          For example: notify me only when at least 2 independent sites confirm it with confidence of 80% or more. A
          finding below these bounds is kept on the watch page, marked “held”, and sent once a later check confirms it.
        </p>
        <div className="form-row">
          {field(
            "min_confidence",
            "Confidence needed",
            <select
              id="min_confidence"
              value={Math.round(v.min_confidence * 100)}
              onChange={setNumber("min_confidence", 100)}
              {...described("min_confidence")}
            >
              {[0, 30, 50, 60, 70, 80, 90, 95].map((p) => (
                <option key={p} value={p}>
                  {p === 0 ? "any" : `${p}% or more`}
                </option>
              ))}
            </select>,
          )}
          {field(
            "min_sources",
            "Independent sites needed",
            <select
              id="min_sources"
              value={v.min_sources}
              onChange={setNumber("min_sources")}
              {...described("min_sources")}
            >
              {[1, 2, 3, 4, 5].map((n) => (
                <option key={n} value={n}>
                  {n === 1 ? "1 (any source)" : `${n} different sites`}
                </option>
              ))}
            </select>,
          )}
        </div>
        {/* One sentence with two bounds in it: the shortest and the longest wait the agent may pick. */}
        <div className="field" role="group" aria-labelledby="cadence-label">
          <span className="label" id="cadence-label">
            How often to check
          </span>
          <p className="cadence">
            Check as often as every{" "}
            <select
              id="min_interval_minutes"
              aria-label="Check as often as every"
              value={v.min_interval_minutes}
              onChange={setNumber("min_interval_minutes")}
              aria-invalid={!!errors.min_interval_minutes || undefined}
              aria-describedby={errors.min_interval_minutes ? "min_interval_minutes-error" : undefined}
            >
              {intervalOptions(v.min_interval_minutes, cadenceFloor).map(([m, label]) => (
                <option key={m} value={m}>
                  {label}
                </option>
              ))}
            </select>{" "}
            and at least once every{" "}
            <span className="nowrap">
              <select
                id="max_interval_minutes"
                aria-label="Check at least once every"
                value={v.max_interval_minutes}
                onChange={setNumber("max_interval_minutes")}
                aria-invalid={!!errors.max_interval_minutes || undefined}
                aria-describedby={errors.max_interval_minutes ? "max_interval_minutes-error" : undefined}
              >
                {intervalOptions(v.max_interval_minutes, cadenceFloor).map(([m, label]) => (
                  <option key={m} value={m}>
                    {label}
                  </option>
                ))}
              </select>
              .
            </span>
          </p>
          <p className="hint">The agent picks each next check within these bounds: more often when news looks close.</p>
          {(["min_interval_minutes", "max_interval_minutes"] as const).map((name) =>
            errors[name] ? (
              <p className="field-error" id={`${name}-error`} role="alert" key={name}>
                {errors[name]}
              </p>
            ) : null,
          )}
        </div>
      </fieldset>

      {editing ? null : (
        <div className="row">
          <label className="check">
            <input type="checkbox" checked={paused} onChange={(e) => setPaused(e.target.checked)} /> Start paused
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={runNow && !paused}
              disabled={paused}
              onChange={(e) => setRunNow(e.target.checked)}
            />{" "}
            Run the first check now
          </label>
        </div>
      )}
      <div className="form-footer">
        <button type="submit" className="large" disabled={busy}>
          {busy ? "Saving…" : editing ? "Save changes" : "Create watch"}
        </button>
        <button type="button" className="large secondary" onClick={() => router.back()}>
          Cancel
        </button>
        {noChannel ? <span className="muted small">Nobody will be notified.</span> : null}
      </div>
    </form>
  );
}

/** What the agent answered in a preview: the verdict, how sure (when met), whether it would be sent, sources. */
function PreviewResult({ preview, rendered }: { preview: Preview; rendered: RenderedPreview | null }) {
  return (
    <div className="preview-result" data-testid="preview">
      <div className="row">
        <OutcomePill outcome={preview.condition_met ? "met" : "not met"} />
        {preview.condition_met ? <span className="muted small">{sureness(preview.confidence)}</span> : null}
        {preview.gate ? (
          <Pill tone={preview.gate.passed ? "ok" : "warn"}>
            {preview.gate.passed ? "would be sent" : `held: ${preview.gate.reason}`}
          </Pill>
        ) : null}
      </div>
      {rendered ? (
        <div className="prose" dangerouslySetInnerHTML={{ __html: rendered.answer_html }} />
      ) : (
        <p className="prose">{preview.answer}</p>
      )}
      {rendered?.sources.length ? (
        <ul className="sources" aria-label="Sources">
          {rendered.sources.map((s, i) => (
            <li key={i}>
              {s.href ? (
                <a href={s.href} rel={rendered.rel} target="_blank">
                  {s.title}
                </a>
              ) : (
                <span>{s.title}</span>
              )}
              {s.site ? <span className="domain">{s.site}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      <p className="small muted">
        Next check it would pick: <Time iso={preview.next_run} /> ({preview.next_run_reason || "no reason given"})
      </p>
    </div>
  );
}
