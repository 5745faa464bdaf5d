"use client";
/** When even the app's shell fails: a plain page of its own (it replaces the root layout). */
import "./globals.css";

export default function GlobalError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <html lang="en">
      <body>
        <main className="narrow">
          <div className="status-page">
            <p className="eyebrow">Error</p>
            <h1>Something went wrong</h1>
            <p className="lead">Watch could not show this page. Try again in a moment.</p>
            <div className="row">
              <button type="button" onClick={reset}>
                Try again
              </button>
              {/* A full load: the app's router is what failed. */}
              {/* eslint-disable-next-line @next/next/no-html-link-for-pages */}
              <a className="button secondary" href="/">
                Go home
              </a>
            </div>
            {error.digest ? <p className="muted small">Error code: {error.digest}</p> : null}
          </div>
        </main>
      </body>
    </html>
  );
}
