"use client";
/** The dashboard's buttons: each calls one tRPC procedure, reports the outcome in a toast and refreshes the page. */
import { useRouter } from "next/navigation";
import { useEffect, useState, type ReactNode } from "react";
import { toast } from "sonner";
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

/** Re-renders the page from the server every 2 s while an execution is pending or running. */
export function LiveRefresh({ active }: { active: boolean }) {
  const router = useRouter();
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => router.refresh(), 2000);
    return () => clearInterval(timer);
  }, [active, router]);
  return active ? (
    <p className="live" role="status">
      <span className="spinner" aria-hidden /> The agent is checking now; this page updates by itself.
    </p>
  ) : null;
}

export function RunNow({ id }: { id: string }) {
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
  return (
    <>
      <button type="button" disabled={busy} onClick={() => execute(false)}>
        Run now
      </button>
      {conflict ? (
        <div className="notice" role="alert">
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

export function StateButtons({ id, state }: { id: string; state: "active" | "paused" | "completed" }) {
  const { busy, run } = useAction();
  const to = (next: "active" | "paused" | "completed", label: string, text: string) => (
    <button
      type="button"
      className="secondary"
      disabled={busy}
      onClick={() => run(() => trpc.tasks.update.mutate({ id, state: next }), label)}
    >
      {text}
    </button>
  );
  return (
    <>
      {state === "active"
        ? to("paused", "Watch paused", "Pause")
        : to("active", "Watch resumed", state === "completed" ? "Reactivate" : "Resume")}
      {state === "active" ? to("completed", "Watch completed", "Complete") : null}
    </>
  );
}

export function Confirm({
  label,
  prompt,
  confirmLabel,
  onConfirm,
  danger,
}: {
  label: string;
  prompt: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown>;
  danger?: boolean;
}) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!open)
    return (
      <button type="button" className={danger ? "danger" : "secondary"} onClick={() => setOpen(true)}>
        {label}
      </button>
    );
  return (
    <div className="confirm" role="group" aria-label={label}>
      <span>{prompt}</span>
      <button
        type="button"
        className={danger ? "danger" : undefined}
        disabled={busy}
        autoFocus
        onClick={async () => {
          setBusy(true);
          await onConfirm();
          setBusy(false);
          setOpen(false);
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" className="secondary" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </div>
  );
}

export function DeleteWatch({ id }: { id: string }) {
  const { run, router } = useAction();
  return (
    <Confirm
      label="Delete"
      danger
      confirmLabel="Delete permanently"
      prompt="Delete this watch and its history?"
      onConfirm={async () => {
        const ok = await run(() => trpc.tasks.delete.mutate({ id }).then(() => true), "Watch deleted");
        if (ok) router.push("/dashboard");
      }}
    />
  );
}

export function Visibility({ id, isPublic, username }: { id: string; isPublic: boolean; username: string | null }) {
  const { busy, run } = useAction();
  const [asking, setAsking] = useState(false);
  const [name, setName] = useState("");
  const setPublic = (value: boolean) =>
    run(
      () => trpc.tasks.setVisibility.mutate({ id, is_public: value }),
      value ? "Watch is public" : "Watch is private",
    );
  if (isPublic)
    return (
      <button type="button" className="secondary" disabled={busy} onClick={() => setPublic(false)}>
        Make private
      </button>
    );
  if (!asking)
    return (
      <button
        type="button"
        className="secondary"
        disabled={busy}
        onClick={() => (username ? setPublic(true) : setAsking(true))}
      >
        Make public
      </button>
    );
  return (
    <form
      className="confirm"
      aria-label="Choose a username"
      onSubmit={async (e) => {
        e.preventDefault();
        const user = await run(() => trpc.users.setUsername.mutate({ username: name.trim() }));
        if (user) await setPublic(true);
      }}
    >
      <label htmlFor="publish-username">Public watches show your username. Choose one (you can set it once):</label>
      <input
        id="publish-username"
        value={name}
        onChange={(e) => setName(e.target.value)}
        required
        minLength={3}
        maxLength={30}
      />
      <button type="submit" disabled={busy}>
        Publish
      </button>
      <button type="button" className="secondary" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </form>
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

export function TestSend({ id, type }: { id: string; type: "email" | "webhook" }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className="secondary small"
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        try {
          const r = await trpc.tasks.testNotification.mutate({ id, type });
          if (r.status === "sent") toast.success(`Test ${type} sent`);
          else toast.error(`Test ${type} ${r.status}${r.error_message ? `: ${r.error_message}` : ""}`);
        } catch (e) {
          toast.error(errorMessage(e));
        } finally {
          setBusy(false);
        }
      }}
    >
      Send test {type}
    </button>
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

/** Sends a run's webhook again (same webhook-id); the new attempt appears in the history. */
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
