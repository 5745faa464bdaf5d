import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { Toaster } from "sonner";
import { viewer } from "@/server/api/server-caller";
import { SiteFooter, SiteHeader } from "./ui/shell";
import { TimeZoneProvider } from "./ui/time";
import "./globals.css";

// Every page renders per request: its scripts carry the nonce of that response's Content-Security-Policy (proxy.ts).
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Watch", template: "%s · Watch" },
  description: "Tell an AI agent what to keep an eye on; it checks the web and tells you when it happens.",
};

export const viewport: Viewport = {
  themeColor: [
    { media: "(prefers-color-scheme: light)", color: "#ffffff" },
    { media: "(prefers-color-scheme: dark)", color: "#16191f" },
  ],
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // The header shows who is signed in; dates are shown in their time zone. A failing account read leaves the
  // visitor signed out here (the page itself reports the problem, if it needs the account).
  const user = await viewer().catch(() => null);
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#content">
          Skip to content
        </a>
        <TimeZoneProvider zone={user?.timezone ?? "UTC"}>
          <SiteHeader user={user} />
          <div id="content" className="shell-main" tabIndex={-1}>
            {children}
          </div>
          <SiteFooter />
        </TimeZoneProvider>
        <Toaster position="bottom-right" richColors closeButton />
      </body>
    </html>
  );
}
