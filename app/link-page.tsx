import type { ReactNode } from "react";
import { LinkAction } from "./link-action";

/**
 * The page behind a link sent by email: what the button will do, and the button; or, when the link lost its
 * parameters (a mail client cut it), how to get a whole one.
 */
export function LinkPage({
  title,
  body,
  children,
  endpoint,
  label,
  doneText,
}: {
  title: string;
  /** The link's parameters, null when one is missing. */
  body: Record<string, string> | null;
  /** What the button will do. */
  children: ReactNode;
  endpoint: string;
  label: string;
  doneText: string;
}) {
  return (
    <main className="narrow">
      <div className="card stack">
        <h1>{title}</h1>
        {body ? (
          <>
            <p>{children}</p>
            <LinkAction endpoint={endpoint} body={body} label={label} doneText={doneText} />
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
