"use client";
/** A page that failed to render: said plainly, with a retry (the server's log has the details under `digest`). */
import Link from "next/link";

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="narrow">
      <div className="status-page">
        <p className="eyebrow">Error</p>
        <h1>Something went wrong</h1>
        <p className="lead">
          This page could not be shown. Try again in a moment; if it keeps failing, tell us the code below.
        </p>
        <div className="row">
          <button type="button" onClick={reset}>
            Try again
          </button>
          <Link className="button secondary" href="/">
            Go home
          </Link>
        </div>
        {error.digest ? <p className="muted small">Error code: {error.digest}</p> : null}
      </div>
    </main>
  );
}
