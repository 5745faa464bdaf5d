import type { Metadata } from "next";
import { LinkAction } from "../../link-action";

export const metadata: Metadata = { title: "Pause a watch", robots: { index: false } };

export default async function PauseWatchPage({
  searchParams,
}: {
  searchParams: Promise<{ task?: string; token?: string }>;
}) {
  const { task, token } = await searchParams;
  return (
    <main className="narrow">
      <div className="card stack">
        <h1>Pause this watch</h1>
        {task && token ? (
          <>
            <p>
              The agent stops checking and you get no more notifications from this watch until you resume it in the
              dashboard.
            </p>
            <LinkAction
              endpoint="/api/v1/email/pause"
              body={{ task, token }}
              label="Pause the watch"
              doneText="The watch is paused."
            />
          </>
        ) : (
          <p className="notice" data-tone="warn">
            This link is incomplete. Open the link from the email again.
          </p>
        )}
      </div>
    </main>
  );
}
