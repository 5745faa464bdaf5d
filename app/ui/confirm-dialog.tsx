"use client";
/**
 * Asking before something that cannot be undone (delete, revoke, rotate, unfollow): a Radix AlertDialog, which
 * traps focus, starts on Cancel, closes on Escape and gives the question to screen readers. Open it from a button
 * (`label`) or from a menu item (controlled: `open` and `onOpenChange`, no `label`).
 *
 * Modal dialogs lock page scrolling with a small injected stylesheet; the pages' Content-Security-Policy allows
 * inline styles (no script can come from them).
 */
import * as AlertDialog from "@radix-ui/react-alert-dialog";
import { useState, type ReactNode } from "react";

export function ConfirmDialog({
  label,
  title,
  description,
  confirmLabel,
  onConfirm,
  danger,
  open,
  onOpenChange,
  triggerClassName,
}: {
  /** The button that opens the dialog; leave out when the dialog is opened from elsewhere (`open`). */
  label?: string;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  /** Runs on confirm; the dialog stays open (its buttons disabled) until it settles. */
  onConfirm: () => Promise<unknown>;
  danger?: boolean;
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  triggerClassName?: string;
}) {
  const [ownOpen, setOwnOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const isOpen = open ?? ownOpen;
  const setOpen = onOpenChange ?? setOwnOpen;
  return (
    <AlertDialog.Root open={isOpen} onOpenChange={(o) => !busy && setOpen(o)}>
      {label ? (
        <AlertDialog.Trigger asChild>
          <button type="button" className={triggerClassName ?? (danger ? "secondary danger" : "secondary")}>
            {label}
          </button>
        </AlertDialog.Trigger>
      ) : null}
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog-content">
          <AlertDialog.Title asChild>
            <h2>{title}</h2>
          </AlertDialog.Title>
          <AlertDialog.Description asChild>
            <p>{description}</p>
          </AlertDialog.Description>
          <div className="dialog-actions">
            <AlertDialog.Cancel asChild>
              <button type="button" className="secondary" disabled={busy}>
                Cancel
              </button>
            </AlertDialog.Cancel>
            <button
              type="button"
              className={danger ? "danger" : undefined}
              disabled={busy}
              onClick={async () => {
                setBusy(true);
                try {
                  await onConfirm();
                } finally {
                  setBusy(false);
                  setOpen(false);
                }
              }}
            >
              {confirmLabel}
            </button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
