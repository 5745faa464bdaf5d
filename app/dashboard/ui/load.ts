import { TRPCError } from "@trpc/server";
import { notFound } from "next/navigation";
import { serverCaller } from "@/server/api/server-caller";

/** The caller's own watch, or the 404 page (malformed ids and other users' watches included). */
export async function ownWatch(id: string) {
  const caller = await serverCaller();
  try {
    return await caller.tasks.get({ id });
  } catch (e) {
    if (e instanceof TRPCError && (e.code === "NOT_FOUND" || e.code === "BAD_REQUEST")) notFound();
    throw e;
  }
}
