"use client";
/** The dashboard's buttons: each calls one tRPC procedure, reports the outcome in a toast and refreshes the page. */
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { toast } from "sonner";
import { formatElapsed } from "@/server/render/dates";
import { ConfirmDialog } from "../../ui/confirm-dialog";
import { Dialog, DialogClose } from "../../ui/dialog";
import { Icon } from "../../ui/icons";
import { Menu, MenuItem, MenuSeparator } from "../../ui/menu";
import { channelOf, type ChannelType as NotificationType } from "@/channels";
import { errorMessage, statusOf, trpc } from "./trpc";

export function useAction() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  /** `handled` may take an error over (returning true) instead of the error toast. */
  async function run<T>(
    fn: () => Promise<T>,
    success?: string | ((r: T) => string),
    handled?: (e: unknown) => boolean,
  ): Promise<T | undefined> {
    setBusy(true);
    try {
      const r = await fn();
      if (success) toast.success(typeof success === "function" ? success(r) : success);
      router.refresh();
      return r;
    } catch (e) {
      if (!handled?.(e)) toast.error(errorMessage(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }
  return { busy, run, router };
}

/**
 * Re-renders the page from the server every 2 s while `active` (a check is pending or running), and says so
 * unless `quiet` (a list whose rows show it themselves).
 */
export function LiveRefresh({ active, quiet }: { active: boolean; quiet?: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => router.refresh(), 2000);
    return () => clearInterval(timer);
  }, [active, router]);
  return active && !quiet ? (
    <p className="live" role="status">
      <span className="spinner" aria-hidden /> The agent is checking now; this page updates by itself.
    </p>
  ) : null;
}

/** Time since `since`, ticking every second (server and browser may start a second apart: hence no warning). */
function Elapsed({ since }: { since: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return (
    <span className="num" suppressHydrationWarning>
      {formatElapsed(now - new Date(since).getTime())}
    </span>
  );
}

/**
 * Run now; while a check is open it is "Running… 0:12" and disabled. A page that had not seen the open check yet
 * gets a 409, explained, with a way to start another one anyway (for a check that looks stuck).
 */
export function RunNow({
  id,
  runningSince,
  label = "Run now",
  secondary,
}: {
  id: string;
  runningSince: string | null;
  /** "Retry now" where a check failed. */
  label?: string;
  secondary?: boolean;
}) {
  const { busy, run } = useAction();
  const [conflict, setConflict] = useState(false);
  async function execute(force: boolean) {
    const started = await run(
      () => trpc.tasks.execute.mutate({ id, force }),
      "Check started",
      (e) => {
        if (statusOf(e) !== 409) return false;
        setConflict(true);
        return true;
      },
    );
    if (started) setConflict(false);
  }
  if (runningSince && !conflict)
    return (
      <button type="button" className={secondary ? "secondary" : undefined} disabled>
        <span className="spinner" aria-hidden /> Running… <Elapsed since={runningSince} />
      </button>
    );
  return (
    <>
      <button
        type="button"
        className={secondary ? "secondary" : undefined}
        disabled={busy}
        onClick={() => execute(false)}
      >
        <Icon name="play" /> {label}
      </button>
      {conflict ? (
        <div className="notice" data-tone="warn" role="alert">
          A check is already pending or running. Wait for it to finish; if it looks stuck, you can{" "}
          <button type="button" className="link" onClick={() => execute(true)}>
            start a new check anyway
          </button>
          .
        </div>
      ) : null}
    </>
  );
}

/** Pause or resume (reactivate a completed watch): `primary` where it is the first thing to do. */
export function PauseResume({
  id,
  state,
  primary,
}: {
  id: string;
  state: "active" | "paused" | "completed";
  primary?: boolean;
}) {
  const { busy, run } = useAction();
  const [next, label, text] =
    state === "active"
      ? (["paused", "Watch paused", "Pause"] as const)
      : (["active", "Watch resumed", state === "completed" ? "Reactivate" : "Resume"] as const);
  return (
    <button
      type="button"
      className={primary ? undefined : "secondary"}
      disabled={busy}
      onClick={() => run(() => trpc.tasks.update.mutate({ id, state: next }), label)}
    >
      {text}
    </button>
  );
}

/**
 * The owner's less frequent actions, in one menu: complete (or, on a completed watch, one more check), make public or
 * private, fork, start another check while one looks stuck, delete (asked first).
 */
export function MoreActions({
  id,
  state,
  isPublic,
  username,
  running,
}: {
  id: string;
  state: "active" | "paused" | "completed";
  isPublic: boolean;
  username: string | null;
  running: boolean;
}) {
  const { busy, run, router } = useAction();
  const [deleting, setDeleting] = useState(false);
  const [naming, setNaming] = useState(false);
  const setPublic = (value: boolean) =>
    run(
      () => trpc.tasks.setVisibility.mutate({ id, is_public: value }),
      value ? "Watch is public" : "Watch is private",
    );
  return (
    <>
      <Menu label="More actions" trigger={<Icon name="more" />}>
        {state === "active" ? (
          <MenuItem
            disabled={busy}
            onSelect={() => run(() => trpc.tasks.update.mutate({ id, state: "completed" }), "Watch completed")}
          >
            Complete
          </MenuItem>
        ) : state === "completed" ? (
          <MenuItem
            disabled={busy || running}
            onSelect={() => run(() => trpc.tasks.execute.mutate({ id }), "Check started")}
          >
            Run now
          </MenuItem>
        ) : null}
        <MenuItem
          disabled={busy}
          onSelect={() => (isPublic ? setPublic(false) : username ? setPublic(true) : setNaming(true))}
        >
          {isPublic ? "Make private" : "Make public"}
        </MenuItem>
        <MenuItem
          disabled={busy}
          onSelect={async () => {
            const task = await run(() => trpc.tasks.fork.mutate({ id }), "Forked: your copy starts paused");
            if (task) router.push(`/dashboard/w/${task.id}`);
          }}
        >
          Fork
        </MenuItem>
        {running ? (
          <MenuItem
            disabled={busy}
            onSelect={() => run(() => trpc.tasks.execute.mutate({ id, force: true }), "Another check started")}
          >
            Start another check anyway
          </MenuItem>
        ) : null}
        <MenuSeparator />
        <MenuItem tone="danger" onSelect={() => setDeleting(true)}>
          Delete…
        </MenuItem>
      </Menu>
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title="Delete this watch?"
        description="Its checks, findings and delivery history go with it. This cannot be undone."
        confirmLabel="Delete permanently"
        danger
        onConfirm={async () => {
          const ok = await run(() => trpc.tasks.delete.mutate({ id }).then(() => true), "Watch deleted");
          if (!ok) return;
          // The list may be in the router's cache from before the delete: fetched again, it no longer shows the watch.
          router.push("/dashboard");
          router.refresh();
        }}
      />
      <UsernameDialog open={naming} onOpenChange={setNaming} onChosen={() => setPublic(true)} />
    </>
  );
}

/**
 * Publishing needs a username first: asked once, in a dialog. The page refreshes once, after publishing (two
 * refreshes in a row may land out of order).
 */
function UsernameDialog({
  open,
  onOpenChange,
  onChosen,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onChosen: () => Promise<unknown>;
}) {
  const [busy, setBusy] = useState(false);
  const [name, setName] = useState("");
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Choose a username"
      description="Public watches show your username instead of your name or email."
    >
      <form
        className="stack"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          try {
            await trpc.users.setUsername.mutate({ username: name.trim() });
          } catch (err) {
            toast.error(errorMessage(err));
            return setBusy(false);
          }
          await onChosen();
          setBusy(false);
          onOpenChange(false);
        }}
      >
        <div className="field">
          <label htmlFor="publish-username">Choose one (you can set it once)</label>
          <input
            id="publish-username"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            minLength={3}
            maxLength={30}
            autoComplete="username"
          />
        </div>
        <div className="dialog-actions">
          <DialogClose>Cancel</DialogClose>
          <button type="submit" disabled={busy}>
            Publish
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function ForkButton({ id }: { id: string }) {
  const { busy, run, router } = useAction();
  return (
    <button
      type="button"
      className="secondary"
      disabled={busy}
      onClick={async () => {
        const task = await run(() => trpc.tasks.fork.mutate({ id }), "Forked: your copy starts paused");
        if (task) router.push(`/dashboard/w/${task.id}`);
      }}
    >
      Fork
    </button>
  );
}

type TestAnswer = Awaited<ReturnType<typeof trpc.notifications.test.mutate>>;

/** A "Send test" button: `send` makes the test, the toast says how it went (and why not, with its failure's class). */
function TestButton({ type, send, disabled }: { type: string; send: () => Promise<TestAnswer>; disabled?: boolean }) {
  const [busy, setBusy] = useState(false);
  const label = channelOf(type)?.label ?? type;
  return (
    <button
      type="button"
      className="secondary small"
      disabled={busy || disabled}
      aria-label={`Send test ${label}`}
      onClick={async () => {
        setBusy(true);
        try {
          const r = await send();
          const what = `Test ${label}`;
          if (r.status === "sent") toast.success(`${what} sent`);
          else toast.error(`${what} ${r.status}${r.error_message ? `: ${r.error_message}` : ""}`);
        } catch (e) {
          toast.error(errorMessage(e));
        } finally {
          setBusy(false);
        }
      }}
    >
      {busy ? "Sending…" : "Send test"}
    </button>
  );
}

/** Tests a watch's saved channel of `type`. */
export function TestSend({ id, type }: { id: string; type: NotificationType }) {
  return <TestButton type={type} send={() => trpc.tasks.testNotification.mutate({ id, type })} />;
}

/**
 * Tests a channel as it stands in a form, saved or not: validated as saving it would be. `taskId` (the watch being
 * edited, or followed) names the watch in the message and lets a secret shown redacted stand for the stored one.
 */
export function TestConfig({
  config,
  taskId,
  name,
}: {
  config: { type: string } | null;
  taskId?: string;
  name?: string;
}) {
  if (!config) return null;
  return (
    <TestButton
      type={config.type}
      send={() =>
        trpc.notifications.test.mutate({
          notification: config,
          task_id: taskId,
          name: taskId ? undefined : name?.trim().slice(0, 200) || undefined,
        })
      }
    />
  );
}

/**
 * "Send it anyway" on a held verdict: asks first, saying who will be told, then sends the finding its bounds held back
 * (it goes out as a finding that cleared them would: the watch's channels, its followers; a public watch shows it).
 */
export function SendAnyway({
  id,
  findingKey,
  title,
  channels,
  isPublic,
}: {
  id: string;
  findingKey: string;
  title: string;
  /** The watch's channels in words ("Email me@example.com"). */
  channels: string[];
  /** A public watch's followers are told too, and its page shows the finding. */
  isPublic: boolean;
}) {
  const { run } = useAction();
  const to = [channels.length ? `your ${channels.join(", ")}` : null, isPublic ? "everyone following it" : null].filter(
    Boolean,
  );
  return (
    <ConfirmDialog
      label="Send it anyway"
      triggerClassName=""
      title="Send this finding anyway?"
      description={
        <>
          “{title}” did not clear this watch&apos;s bounds. Sent now, it goes out as a finding that cleared them would:{" "}
          {to.length ? `to ${to.join(" and ")}` : "to nobody yet (the watch has no channels)"}
          {isPublic ? ", and the public page shows it" : ""}. This cannot be taken back.
        </>
      }
      confirmLabel="Send it now"
      onConfirm={() =>
        run(() => trpc.tasks.sendFinding.mutate({ id, key: findingKey }), "Sent: the finding is on its way")
      }
    />
  );
}

/**
 * After a met finding on an active watch, asked once per finding and account (the watch's `answered`, kept by the
 * server): "Answered — stop watching, or keep watching for changes?". Stop completes the watch (one click); Keep
 * watching records the answer, so no browser or client asks again until a new finding.
 */
export function AnsweredPrompt({ id }: { id: string }) {
  const { busy, run } = useAction();
  return (
    <div className="answered notice" role="group" aria-labelledby="answered-title" data-testid="answered-prompt">
      <p id="answered-title">
        <strong>Answered</strong> — stop watching, or keep watching for changes?
      </p>
      <div className="row">
        <button
          type="button"
          disabled={busy}
          onClick={() => run(() => trpc.tasks.update.mutate({ id, state: "completed" }), "Watch completed")}
        >
          Stop watching
        </button>
        <button
          type="button"
          className="secondary"
          disabled={busy}
          onClick={() => run(() => trpc.tasks.keepWatching.mutate({ id }))}
        >
          Keep watching
        </button>
      </div>
    </div>
  );
}

export function DismissWelcome() {
  const { busy, run } = useAction();
  return (
    <button
      type="button"
      className="secondary"
      disabled={busy}
      onClick={() => run(() => trpc.auth.markWelcomeSeen.mutate())}
    >
      Got it
    </button>
  );
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  return (
    <button
      type="button"
      className="secondary small"
      onClick={() =>
        navigator.clipboard.writeText(text).then(
          () => toast.success("Copied"),
          () => toast.error("Copy failed: select and copy by hand"),
        )
      }
    >
      {label}
    </button>
  );
}

/** Sends a run's notice again on the send's channel; the new attempt appears in the history. */
export function Redeliver({ id }: { id: string }) {
  const { busy, run } = useAction();
  return (
    <button
      type="button"
      className="secondary small"
      disabled={busy}
      onClick={() =>
        run(
          () => trpc.notifications.redeliver.mutate({ id }),
          (r) => (r.status === "sent" ? "Redelivered" : `Redelivery ${r.status}: ${r.error_message ?? ""}`),
        )
      }
    >
      Redeliver
    </button>
  );
}
