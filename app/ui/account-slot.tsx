"use client";
/**
 * Puts its children (Clerk's account button) into the header's account slot. The header belongs to the root layout,
 * outside the Clerk provider that only the dashboard's pages load; a portal keeps the button inside the provider
 * while it shows in the header. It renders in the browser only, as Clerk's button does anyway.
 */
import { useSyncExternalStore, type ReactNode } from "react";
import { createPortal } from "react-dom";

const noSubscription = () => () => {};

export function AccountSlot({ children }: { children: ReactNode }) {
  const slot = useSyncExternalStore(
    noSubscription,
    () => document.getElementById("account-slot"),
    () => null,
  );
  return slot ? createPortal(children, slot) : null;
}
