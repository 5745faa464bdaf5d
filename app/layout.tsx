import type { Metadata } from "next";
import Link from "next/link";
import type { ReactNode } from "react";
import { Toaster } from "sonner";
import "./globals.css";

// Every page renders per request: its scripts carry the nonce of that response's Content-Security-Policy (proxy.ts).
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Watch", template: "%s · Watch" },
  description: "Tell an AI agent what to keep an eye on; it checks the web and tells you when it happens.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="site">
          <Link className="brand" href="/">
            Watch
          </Link>
          <Link href="/explore">Explore</Link>
          <Link href="/dashboard">Dashboard</Link>
          <Link href="/docs">API</Link>
        </header>
        {children}
        <Toaster position="bottom-right" richColors closeButton />
      </body>
    </html>
  );
}
