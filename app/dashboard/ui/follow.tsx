"use client";
/** Following someone's public watch: the Follow button of its page, and the channels of a follow in the dashboard. */
import { useState } from "react";
import { toast } from "sonner";
import type { NotificationConfig } from "@/server/tasks/schemas";
import { ConfirmDialog } from "../../ui/confirm-dialog";
import { TestConfig, useAction } from "./actions";
import type { ChannelConfig } from "@/channels";
import { ChannelEditor } from "./channel-editor";
import { isEdited } from "./edited-channels";
import { errorMessage, trpc } from "./trpc";

/** Signed in: follow with the account's own email (channels can be changed under Following). */
export function FollowButton({ taskId, following, email }: { taskId: string; following: boolean; email: string }) {
  const { busy, run } = useAction();
  if (following)
    return (
      <button
        type="button"
        className="secondary"
        disabled={busy}
        onClick={() => run(() => trpc.follows.unfollow.mutate({ id: taskId }), "Unfollowed")}
      >
        Unfollow
      </button>
    );
  return (
    <button
      type="button"
      disabled={busy}
      onClick={() =>
        run(
          () => trpc.follows.follow.mutate({ id: taskId, notifications: [{ type: "email", address: email }] }),
          `Following: news goes to ${email}`,
        )
      }
    >
      Follow
    </button>
  );
}

/** A follow's channels (email, webhook, chat and push), changed together; or unfollow. */
export function FollowChannels({ taskId, notifications }: { taskId: string; notifications: NotificationConfig[] }) {
  const { busy, run } = useAction();
  const email = notifications.find((n) => n.type === "email");
  const webhook = notifications.find((n) => n.type === "webhook");
  const [address, setAddress] = useState(email?.type === "email" ? email.address : "");
  const [url, setUrl] = useState(webhook?.type === "webhook" ? webhook.url : "");
  const [channels, setChannels] = useState<ChannelConfig[]>(notifications.filter(isEdited));
  /** The email and webhook channels as they stand (saved on submit, tried by Send test). */
  const typedEmail: NotificationConfig | null = address.trim() ? { type: "email", address: address.trim() } : null;
  const typedWebhook: NotificationConfig | null = url.trim()
    ? { type: "webhook", url: url.trim(), method: "POST", headers: {} }
    : null;
  const save = () => {
    const next = [typedEmail, typedWebhook, ...(channels as NotificationConfig[])].filter((n) => n !== null);
    return run(() => trpc.follows.follow.mutate({ id: taskId, notifications: next }), "Channels saved");
  };
  return (
    <form
      className="stack section"
      aria-label="Channels of this follow"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div className="form-row">
        <div className="field">
          <label htmlFor={`follow-email-${taskId}`}>Email</label>
          <div className="channel-inputs">
            <input
              id={`follow-email-${taskId}`}
              type="email"
              value={address}
              onChange={(e) => setAddress(e.target.value)}
              placeholder="you@example.com"
            />
            <TestConfig config={typedEmail} taskId={taskId} />
          </div>
        </div>
        <div className="field">
          <label htmlFor={`follow-webhook-${taskId}`}>Webhook URL</label>
          <div className="channel-inputs">
            <input
              id={`follow-webhook-${taskId}`}
              type="url"
              value={url}
              onChange={(e) => setUrl(e.target.value)}
              placeholder="https://example.com/hooks/watch"
            />
            <TestConfig config={typedWebhook} taskId={taskId} />
          </div>
        </div>
      </div>
      <ChannelEditor value={channels} onChange={setChannels} taskId={taskId} idPrefix={`follow-${taskId}-`} />
      <div className="row">
        <button type="submit" disabled={busy}>
          Save channels
        </button>
        <ConfirmDialog
          label="Unfollow"
          title="Unfollow this watch?"
          description="You stop getting its findings. You can follow it again from its page."
          confirmLabel="Unfollow"
          onConfirm={() =>
            trpc.follows.unfollow.mutate({ id: taskId }).then(
              () => {
                toast.success("Unfollowed");
                location.reload();
              },
              (e) => toast.error(errorMessage(e)),
            )
          }
        />
      </div>
    </form>
  );
}

/** Signed out: follow by email; the answer is the same whether or not the address already follows. */
export function FollowByEmail({ taskId }: { taskId: string }) {
  const [email, setEmail] = useState("");
  const [state, setState] = useState<{ busy?: boolean; done?: string; error?: string }>({});
  async function submit(e: React.FormEvent) {
    e.preventDefault();
    setState({ busy: true });
    try {
      const res = await fetch(`/api/v1/public/tasks/id/${taskId}/follow`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: email.trim() }),
      });
      const body = (await res.json().catch(() => ({}))) as { message?: string; detail?: unknown };
      if (res.ok) setState({ done: body.message ?? "Check your inbox to confirm." });
      else setState({ error: typeof body.detail === "string" ? body.detail : "Please enter a valid email address." });
    } catch {
      setState({ error: "The server could not be reached. Try again." });
    }
  }
  if (state.done)
    return (
      <p className="notice" role="status">
        {state.done}
      </p>
    );
  return (
    <form className="inline-form" onSubmit={submit} aria-label="Follow by email">
      <div className="field">
        <label htmlFor="follow-email">Follow by email</label>
        <input
          id="follow-email"
          type="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          placeholder="you@example.com"
          autoComplete="email"
        />
      </div>
      <button type="submit" disabled={state.busy}>
        Follow
      </button>
      {state.error ? (
        <p role="alert" className="field-error">
          {state.error}
        </p>
      ) : null}
    </form>
  );
}
