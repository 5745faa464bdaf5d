import type { Metadata } from "next";
import { LinkAction } from "../../link-action";

export const metadata: Metadata = { title: "Confirm your follow", robots: { index: false } };

export default async function ConfirmFollowPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  return (
    <main>
      <h1>Follow this watch</h1>
      {token ? (
        <>
          <p>
            Confirm to get an email whenever this public watch finds something (and if a finding is withdrawn). Every
            email has a link to stop.
          </p>
          <LinkAction
            endpoint="/api/v1/public/follows/confirm"
            body={{ token }}
            label="Confirm and follow"
            doneText="You are following this watch."
          />
        </>
      ) : (
        <p className="notice">This link is incomplete. Open the link from the email again.</p>
      )}
    </main>
  );
}
