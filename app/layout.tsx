import type { ReactNode } from "react";

export const metadata = { title: "Watch", description: "An AI agent that keeps an eye on the web for you." };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
