import { UserButton } from "@clerk/nextjs";
import type { Metadata } from "next";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { viewer } from "@/server/api/server-caller";
import { AccountSlot } from "../ui/account-slot";
import { clerkPublishableKey, MaybeClerk } from "./ui/clerk";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dashboard", robots: { index: false } };

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await viewer();
  // The sign-in page explains what to do when Clerk is not configured.
  if (!user) redirect("/sign-in");
  const clerk = !!clerkPublishableKey() && user.clerk_user_id !== "user_noauth";
  return (
    <MaybeClerk>
      {clerk ? (
        <AccountSlot>
          <UserButton />
        </AccountSlot>
      ) : null}
      {children}
    </MaybeClerk>
  );
}
