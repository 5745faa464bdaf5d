import { getHTTPStatusCodeFromError } from "@trpc/server/http";
import { notFound, redirect } from "next/navigation";
import { serverCaller } from "@/server/api/server-caller";

/**
 * The caller's own watch. Someone else's public watch opens on its public page; anything else (private,
 * missing, malformed id) is the 404 page.
 */
export async function ownWatch(id: string) {
  const caller = await serverCaller();
  let task;
  try {
    task = await caller.tasks.get({ id });
  } catch (e) {
    const status = e instanceof Error && "code" in e ? getHTTPStatusCodeFromError(e as Parameters<typeof getHTTPStatusCodeFromError>[0]) : 500;
    if (status === 404 || status === 400) notFound();
    throw e;
  }
  if (task.owner) redirect(`/w/${task.id}`);
  return task;
}
