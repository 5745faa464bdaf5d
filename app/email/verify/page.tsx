import type { Metadata } from "next";
import { LinkAction } from "../../link-action";

export const metadata: Metadata = { title: "Confirm your address", robots: { index: false } };

export default async function VerifyAddressPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  return (
    <main className="narrow">
      <div className="card stack">
        <h1>Confirm your address</h1>
        {token ? (
          <>
            <p>Confirm that Watch may send notifications to this address. Nothing is sent to it until you do.</p>
            <LinkAction
              endpoint="/api/v1/email/verify"
              body={{ token }}
              label="Confirm this address"
              doneText="Thanks: the address is confirmed."
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
