"use client";
/**
 * The one navigation: links in the header on wide screens, the same links in a menu on narrow ones, the current
 * section marked (aria-current) in both.
 *
 * Pages that load Clerk's browser SDK (the dashboard) are sent with a Content-Security-Policy that allows Clerk's
 * hosts; the public pages' policy allows none. A policy belongs to the document, so a link from a public page into
 * the dashboard loads the page in full (`hard`) when Clerk is configured, instead of a client-side navigation that
 * would keep the public page's policy and block Clerk. The API docs are a full page of their own too.
 */
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { Icon } from "./icons";
import { Menu, MenuLabel, MenuLink, MenuSeparator } from "./menu";

type Item = { href: string; label: string; current: (path: string) => boolean };

const under = (prefix: string) => (path: string) => path === prefix || path.startsWith(`${prefix}/`);

const APP: Item[] = [
  {
    href: "/dashboard",
    label: "Watches",
    current: (p) => p === "/dashboard" || p.startsWith("/dashboard/w/") || p === "/dashboard/new",
  },
  { href: "/dashboard/following", label: "Following", current: under("/dashboard/following") },
  { href: "/dashboard/notifications", label: "Notifications", current: under("/dashboard/notifications") },
  { href: "/dashboard/settings", label: "Settings", current: under("/dashboard/settings") },
];
const ADMIN: Item = { href: "/dashboard/admin", label: "Waitlist", current: under("/dashboard/admin") };
const PUBLIC: Item[] = [
  {
    href: "/explore",
    label: "Explore",
    current: (p) => p === "/explore" || p.startsWith("/w/") || p.startsWith("/u/"),
  },
  { href: "/docs", label: "API docs", current: under("/docs") },
];

const CLERK_PAGES = /^\/(dashboard|sign-in|sign-up)(\/|$)/;

/** Whether a link from `path` to `href` must load the page in full (see above). */
const loadsInFull = (href: string, path: string, clerk: boolean) =>
  href === "/docs" || (clerk && CLERK_PAGES.test(href) && !CLERK_PAGES.test(path));

export type NavProps = { signedIn: boolean; admin: boolean; clerk: boolean };

function useNav({ signedIn, admin, clerk }: NavProps) {
  const path = usePathname();
  const app = signedIn ? [...APP, ...(admin ? [ADMIN] : [])] : [];
  const hard = (href: string) => loadsInFull(href, path, clerk);
  return { path, app, hard };
}

function NavLink({ item, path, hard }: { item: Item; path: string; hard: boolean }) {
  const props = { href: item.href, "aria-current": item.current(path) ? ("page" as const) : undefined };
  return hard ? <a {...props}>{item.label}</a> : <Link {...props}>{item.label}</Link>;
}

/** The header's links (wide screens). */
export function NavLinks(props: NavProps) {
  const { path, app, hard } = useNav(props);
  return (
    <nav className="nav-links" aria-label="Main">
      {app.map((item) => (
        <NavLink key={item.href} item={item} path={path} hard={hard(item.href)} />
      ))}
      {app.length ? <span className="nav-divider" aria-hidden /> : null}
      {PUBLIC.map((item) => (
        <NavLink key={item.href} item={item} path={path} hard={hard(item.href)} />
      ))}
    </nav>
  );
}

/** The same links behind one button (narrow screens). */
export function NavMenu(props: NavProps & { account: string | null }) {
  const { path, app, hard } = useNav(props);
  const link = (item: Item) => (
    <MenuLink key={item.href} href={item.href} current={item.current(path)} hard={hard(item.href)}>
      {item.label}
    </MenuLink>
  );
  return (
    <div className="nav-menu">
      <Menu label="Menu" trigger={<Icon name="menu" />}>
        {props.account ? <MenuLabel>{props.account}</MenuLabel> : null}
        {app.map(link)}
        {app.length ? <MenuSeparator /> : null}
        {PUBLIC.map(link)}
        {props.signedIn ? null : (
          <>
            <MenuSeparator />
            <MenuLink href="/sign-in" hard={hard("/sign-in")}>
              Sign in
            </MenuLink>
          </>
        )}
      </Menu>
    </div>
  );
}

/** Any other link that may cross into the dashboard or to the API docs (e.g. the header's buttons). */
export function ZoneLink({
  href,
  clerk,
  ...rest
}: {
  href: string;
  clerk: boolean;
  className?: string;
  children: ReactNode;
}) {
  const path = usePathname();
  return loadsInFull(href, path, clerk) ? <a href={href} {...rest} /> : <Link href={href} {...rest} />;
}
