"use client";
/**
 * A modal dialog holding a small form (Radix Dialog: focus trapped and returned, Escape closes, title and
 * description announced). For yes/no questions use ConfirmDialog. Controlled: the opener sets `open`.
 */
import * as RadixDialog from "@radix-ui/react-dialog";
import type { ReactNode } from "react";

export function Dialog({
  open,
  onOpenChange,
  title,
  description,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: ReactNode;
  children: ReactNode;
}) {
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="dialog-overlay" />
        <RadixDialog.Content className="dialog-content" {...(description ? {} : { "aria-describedby": undefined })}>
          <RadixDialog.Title asChild>
            <h2>{title}</h2>
          </RadixDialog.Title>
          {description ? (
            <RadixDialog.Description asChild>
              <p>{description}</p>
            </RadixDialog.Description>
          ) : null}
          {children}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

/** A button that closes the dialog it is in (Cancel). */
export function DialogClose({ children }: { children: ReactNode }) {
  return (
    <RadixDialog.Close asChild>
      <button type="button" className="secondary">
        {children}
      </button>
    </RadixDialog.Close>
  );
}
