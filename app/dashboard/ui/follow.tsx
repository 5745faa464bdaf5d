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

/**
 * Signed out: follow by email. The answer is the same whether or not the address already follows; the form then names
 * the address, and offers to ask again or to use another one.
 */
export function FollowByEmail({ taskId }: { taskId: string }) {
  const [email, setEmail] = useState("");
  const [state, setState] = useState<{ busy?: boolean; sentTo?: string; again?: boolean; error?: string }>({});
  async function ask(address: string, again = false) {
    setState((s) => ({ ...s, busy: true, error: undefined }));
    try {
      const res = await fetch(`/api/v1/public/tasks/id/${taskId}/follow`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: address }),
      });
      const body = (await res.json().catch(() => ({}))) as { detail?: unknown };
      if (res.ok) setState({ sentTo: address, again });
      else
        setState((s) => ({
          ...s,
          busy: false,
          error: typeof body.detail === "string" ? body.detail : "Please enter a valid email address.",
        }));
    } catch {
      setState((s) => ({ ...s, busy: false, error: "The server could not be reached. Try again." }));
    }
  }
  if (state.sentTo)
    return (
      <div className="notice stack" role="status" data-testid="follow-sent">
        <p>
          <strong>Check your inbox:</strong> a confirmation link is on its way to <strong>{state.sentTo}</strong>.
          Nothing is sent to it until you confirm.
        </p>
        <p className="small muted">
          {state.again
            ? "Asked again. Watch sends one link per address and watch at a time: if the first one arrived, it is the one to use."
            : "Not there in a few minutes? Look in spam, or ask again."}
        </p>
        <div className="row">
          {state.again ? null : (
            <button
              type="button"
              className="secondary small"
              disabled={state.busy}
              onClick={() => void ask(state.sentTo!, true)}
            >
              Send it again
            </button>
          )}
          <button type="button" className="ghost small" onClick={() => setState({})}>
            Use another address
          </button>
        </div>
        {state.error ? (
          <p role="alert" className="field-error">
            {state.error}
          </p>
        ) : null}
      </div>
    );
  return (
    <form
      className="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        void ask(email.trim());
      }}
      aria-label="Follow by email"
    >
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
