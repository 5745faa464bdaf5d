/**
 * The app shell every page renders in (app/layout.tsx): one header with the brand, the navigation, the main call to
 * action and the account, then the page, then a short footer.
 */
import Link from "next/link";
import type { User } from "@/server/db";
import { clerkPublishableKey, env } from "@/server/env";
import { Icon } from "./icons";
import { NavLinks, NavMenu, ZoneLink } from "./nav";

/** How the header names the signed-in account: its username, else its email. */
export const accountName = (user: Pick<User, "username" | "email">) =>
  user.username ? `@${user.username}` : user.email;

export function SiteHeader({ user }: { user: User | null }) {
  const clerk = !!clerkPublishableKey();
  const nav = { signedIn: !!user, admin: user?.role === "admin", clerk };
  const account = user ? accountName(user) : null;
  return (
    <header className="shell-header">
      <div className="shell-bar">
        <Link className="brand" href="/">
          Watch
        </Link>
        <NavLinks {...nav} />
        <div className="shell-end">
          {user ? (
            <ZoneLink className="button small" href="/dashboard/new" clerk={clerk}>
              <Icon name="plus" /> New watch
            </ZoneLink>
          ) : (
            <>
              <ZoneLink className="button small ghost" href="/sign-in" clerk={clerk}>
                Sign in
              </ZoneLink>
              {env.SIGNUPS === "waitlist" ? (
                <Link className="button small" href="/#waitlist">
                  Join the waitlist
                </Link>
              ) : (
                <ZoneLink className="button small" href="/sign-up" clerk={clerk}>
                  Get started
                </ZoneLink>
              )}
            </>
          )}
          {account ? <span className="account-label">{account}</span> : null}
          {/* Clerk's account button, placed here by the dashboard's layout (the only pages that load Clerk). */}
          <div id="account-slot" className="account-slot" />
          <NavMenu {...nav} account={account} />
        </div>
      </div>
    </header>
  );
}

export function SiteFooter() {
  return (
    <footer className="shell-footer">
      <div className="shell-bar">
        <span>Watch: tell an AI agent what to keep an eye on.</span>
        <Link href="/explore">Explore</Link>
        <a href="/docs">API docs</a>
        <a href="/api/v1/openapi.json">OpenAPI</a>
      </div>
    </footer>
  );
}
