/**
 * Server components call the same tRPC routers as the browser and the REST API, in-process, as the
 * request's caller (Clerk `__session` cookie, or the loopback test user with SERVICE_NOAUTH=1).
 */
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { authenticate } from "../auth";
import type { User } from "../db";
import { appRouter } from "./root";
import { createContext } from "./trpc";

const callerFor = (h: Headers) =>
  appRouter.createCaller(createContext({ headers: h, via: "server", httpMethod: "GET" }));

/** The signed-in user, synced from Clerk on first sight (POST /auth/sync-user semantics); null when signed out. */
export const viewer = cache(async (): Promise<User | null> => {
  const h = await headers();
  const caller = await authenticate(h, h.get("x-watch-client-ip"), true).catch(() => null);
  if (!caller) return null;
  if (caller.user) return caller.user.is_active ? caller.user : null;
  await callerFor(h).auth.syncUser();
  const synced = await authenticate(h, h.get("x-watch-client-ip"), true).catch(() => null);
  return synced?.user ?? null;
});

/**
 * Layouts and pages render concurrently: every caller waits for the account sync of `viewer`, and a
 * signed-out visitor is sent to sign in rather than failing the render.
 */
export const serverCaller = cache(async () => {
  if (!(await viewer())) redirect("/sign-in");
  return callerFor(await headers());
});
