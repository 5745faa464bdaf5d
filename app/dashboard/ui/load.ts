import { notFound, redirect } from "next/navigation";
import { isZodError } from "@/server/api/errors";
import { serverCaller } from "@/server/api/server-caller";
import { isDomainError } from "@/server/errors";
import { markSeen } from "@/server/tasks/service";

/**
 * The caller's own watch. Someone else's public watch opens on its public page; anything else (private,
 * missing, malformed id) is the 404 page. `markSeen`: the owner is looking at it (its page), so its findings so far
 * are no longer unseen; the view still says whether they were.
 */
export async function ownWatch(id: string, opts: { markSeen?: boolean } = {}) {
  const caller = await serverCaller();
  let task;
  try {
    task = await caller.tasks.get({ id });
  } catch (e) {
    // The in-process caller throws tRPC's error around the domain's (or the input's validation failure).
    const cause = (e as { cause?: unknown }).cause;
    if (isDomainError(cause, "not_found") || isZodError(cause)) notFound();
    throw e;
  }
  if (task.owner) redirect(`/w/${task.id}`);
  if (opts.markSeen) await markSeen(task.user_id!, task.id);
  return task;
}
