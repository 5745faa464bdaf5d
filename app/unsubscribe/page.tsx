import type { Metadata } from "next";
import { LinkAction } from "../link-action";

export const metadata: Metadata = { title: "Unsubscribe", robots: { index: false } };

export default async function UnsubscribePage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  return (
    <main className="narrow">
      <div className="card stack">
        <h1>Stop following this watch</h1>
        {token ? (
          <>
            <p>You will get no more emails or webhooks from this watch.</p>
            <LinkAction
              endpoint="/api/v1/public/follows/unsubscribe"
              body={{ token }}
              label="Unsubscribe"
              doneText="Done: you no longer follow this watch."
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
