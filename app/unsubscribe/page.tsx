import type { Metadata } from "next";
import { LinkPage } from "../link-page";

export const metadata: Metadata = { title: "Unsubscribe", robots: { index: false } };

export default async function UnsubscribePage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  return (
    <LinkPage
      title="Stop following this watch"
      body={token ? { token } : null}
      endpoint="/api/v1/public/follows/unsubscribe"
      label="Unsubscribe"
      doneText="Done: you no longer follow this watch."
    >
      You will get no more emails or webhooks from this watch.
    </LinkPage>
  );
}
