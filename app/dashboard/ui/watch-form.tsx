"use client";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { toast } from "sonner";
import type { NotificationConfig } from "@/server/tasks/schemas";
import { errorMessage, fieldErrors, trpc } from "./trpc";

export type WatchFormValues = {
  id?: string;
  name: string;
  search_query: string;
  condition_description: string;
  email: string;
  webhook_url: string;
  webhook_method: "POST" | "PUT" | "PATCH";
  webhook_headers?: Record<string, string>;
};

/** Create (no id) or edit a watch. Errors come from the API and are shown next to their fields. */
export function WatchForm({ initial }: { initial: WatchFormValues }) {
  const router = useRouter();
  const editing = !!initial.id;
  const [v, setV] = useState(initial);
  const [paused, setPaused] = useState(false);
  const [runNow, setRunNow] = useState(true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const set = (k: keyof WatchFormValues) => (e: { target: { value: string } }) => setV({ ...v, [k]: e.target.value });

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!v.search_query.trim()) return setErrors({ search_query: "Tell the agent what to search for." });
    const notifications: NotificationConfig[] = [];
    if (v.email.trim()) notifications.push({ type: "email", address: v.email.trim() });
    if (v.webhook_url.trim())
      notifications.push({ type: "webhook", url: v.webhook_url.trim(), method: v.webhook_method, headers: v.webhook_headers ?? {} });
    const fields = {
      // The API's default name is a placeholder ("New Monitor"); in the dashboard the query names the watch.
      name: v.name.trim() || v.search_query.trim().slice(0, 200),
      search_query: v.search_query.trim(),
      condition_description: v.condition_description.trim() || (editing ? v.search_query.trim() : undefined),
      notifications,
    };
    setBusy(true);
    setErrors({});
    try {
      if (initial.id) {
        await trpc.tasks.update.mutate({ id: initial.id, ...fields });
        toast.success("Watch saved");
        router.push(`/dashboard/w/${initial.id}`);
      } else {
        const task = await trpc.tasks.create.mutate({ ...fields, state: paused ? "paused" : "active", run_immediately: !paused && runNow });
        if (task.immediate_execution_error) toast.error(`Created, but the first check could not start: ${task.immediate_execution_error}`);
        else toast.success(paused ? "Watch created (paused)" : "Watch created");
        router.push(`/dashboard/w/${task.id}`);
      }
      router.refresh();
    } catch (err) {
      const byField = fieldErrors(err);
      const message = errorMessage(err);
      if (/^Invalid notification/i.test(message)) byField[/webhook|url|method|header/i.test(message) ? "webhook" : "email"] = message;
      setErrors(byField);
      toast.error(message);
    } finally {
      setBusy(false);
    }
  }

  const field = (name: string, label: string, input: React.ReactNode, hint?: string) => (
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
    <form className="stack" onSubmit={submit} noValidate>
      {field(
        "search_query",
        "What should the agent look for?",
        <input id="search_query" value={v.search_query} onChange={set("search_query")} required maxLength={2000} autoFocus={!editing}
          placeholder="Postgres 19 beta release" {...described("search_query")} />,
        "What the agent searches the web for.",
      )}
      {field(
        "condition_description",
        "Tell me when…",
        <textarea id="condition_description" rows={2} value={v.condition_description} onChange={set("condition_description")} maxLength={4000}
          placeholder={v.search_query || "a beta release is announced"} {...described("condition_description")} />,
        "The condition that counts as news. Defaults to the search query.",
      )}
      {field("name", "Name", <input id="name" value={v.name} onChange={set("name")} maxLength={200} placeholder={v.search_query.slice(0, 60) || "Optional"} {...described("name")} />, "Optional; defaults to the query.")}
      <fieldset>
        <legend>Notify me</legend>
        {field("email", "Email address", <input id="email" type="email" value={v.email} onChange={set("email")} autoComplete="email" placeholder="you@example.com" {...described("email")} />, "A new address gets a confirmation link first.")}
        {field(
          "webhook",
          "Webhook URL",
          <div className="row">
            <input id="webhook" type="url" value={v.webhook_url} onChange={set("webhook_url")} placeholder="https://example.com/hooks/watch" {...described("webhook")} />
            <select aria-label="Webhook method" value={v.webhook_method} onChange={set("webhook_method")}>
              <option>POST</option>
              <option>PUT</option>
              <option>PATCH</option>
            </select>
          </div>,
          "Signed with Standard Webhooks; the secret is under Notifications.",
        )}
      </fieldset>
      {editing ? null : (
        <div className="row">
          <label className="check">
            <input type="checkbox" checked={paused} onChange={(e) => setPaused(e.target.checked)} /> Start paused
          </label>
          <label className="check">
            <input type="checkbox" checked={runNow && !paused} disabled={paused} onChange={(e) => setRunNow(e.target.checked)} /> Run the first check now
          </label>
        </div>
      )}
      <div className="row">
        <button type="submit" disabled={busy}>
          {busy ? "Saving…" : editing ? "Save changes" : "Create watch"}
        </button>
        <button type="button" className="secondary" onClick={() => router.back()}>
          Cancel
        </button>
      </div>
    </form>
  );
}
