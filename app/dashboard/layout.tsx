import { UserButton } from "@clerk/nextjs";
import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { viewer } from "@/server/api/server-caller";
import { clerkPublishableKey, MaybeClerk } from "./ui/clerk";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Dashboard", robots: { index: false } };

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const user = await viewer();
  const clerk = !!clerkPublishableKey();
  // The sign-in page explains what to do when Clerk is not configured.
  if (!user) redirect("/sign-in");
  return (
    <MaybeClerk>
      <nav className="dash-nav" aria-label="Dashboard">
        <Link href="/dashboard">Watches</Link>
        <Link href="/dashboard/new">New watch</Link>
        <Link href="/dashboard/following">Following</Link>
        <Link href="/dashboard/notifications">Notifications</Link>
        <Link href="/dashboard/settings">Settings</Link>
        {user.role === "admin" ? <Link href="/dashboard/admin">Waitlist</Link> : null}
        <span className="who muted">{user.username ? `@${user.username}` : user.email}</span>
        {clerk && user.clerk_user_id !== "user_noauth" ? <UserButton /> : null}
      </nav>
      {children}
    </MaybeClerk>
  );
}
