import type { Metadata } from "next";
import { LinkPage } from "../../link-page";

export const metadata: Metadata = { title: "Pause a watch", robots: { index: false } };

export default async function PauseWatchPage({
  searchParams,
}: {
  searchParams: Promise<{ task?: string; token?: string }>;
}) {
  const { task, token } = await searchParams;
  return (
    <LinkPage
      title="Pause this watch"
      body={task && token ? { task, token } : null}
      endpoint="/api/v1/email/pause"
      label="Pause the watch"
      doneText="The watch is paused."
    >
      The agent stops checking and you get no more notifications from this watch until you resume it in the dashboard.
    </LinkPage>
  );
}
