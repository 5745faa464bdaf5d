import type { Metadata } from "next";
import Link from "next/link";
import { followToConfirm } from "@/server/follows/service";
import { LinkAction } from "../../link-action";

export const metadata: Metadata = { title: "Confirm your follow", robots: { index: false } };

export default async function ConfirmFollowPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  // Only shows what the link is about: mail scanners open links, so the button does the confirming.
  const follow = token ? await followToConfirm(token) : null;
  return (
    <main className="narrow">
      <div className="card stack">
        <h1>Follow this watch</h1>
        {follow ? (
          <>
            <dl className="facts">
              <dt>Watch</dt>
              <dd>
                <Link href={`/w/${follow.task.id}`}>{follow.task.name}</Link>
              </dd>
              <dt>Emails go to</dt>
              <dd>{follow.email}</dd>
            </dl>
            <p className="muted">
              Confirm to get an email whenever this public watch finds something (and if a finding is withdrawn). Every
              email has a link to stop.
            </p>
            <div>
              <LinkAction
                endpoint="/api/v1/public/follows/confirm"
                body={{ token: token! }}
                label="Confirm and follow"
                doneText="You are following this watch."
              />
            </div>
          </>
        ) : (
          <p className="notice" data-tone="warn">
            {token
              ? "This link is no longer valid: it has expired, or the watch is no longer public. Follow the watch again from its page."
              : "This link is incomplete. Open the link from the email again."}
          </p>
        )}
      </div>
    </main>
  );
}
