import type { Metadata } from "next";
import Link from "next/link";

export const metadata: Metadata = { title: "Not found", robots: { index: false } };

export default function NotFound() {
  return (
    <main className="narrow">
      <div className="status-page">
        <p className="eyebrow">404</p>
        <h1>There is nothing here</h1>
        <p className="lead">The address may be mistyped, or the watch it points to is private or was deleted.</p>
        <div className="row">
          <Link className="button" href="/">
            Go home
          </Link>
          <Link className="button secondary" href="/explore">
            Explore public watches
          </Link>
        </div>
      </div>
    </main>
  );
}
