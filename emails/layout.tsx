/** The frame every Watch email shares: the inbox preview line, a grey page and one white card. */
import { Body, Container, Head, Html, Preview } from "@react-email/components";
import type { ReactNode } from "react";

const page = {
  backgroundColor: "#f6f7f9",
  fontFamily: "-apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif",
};
const card = {
  backgroundColor: "#ffffff",
  borderRadius: "8px",
  margin: "24px auto",
  maxWidth: "560px",
  padding: "24px",
};
/** A source as an email shows it: its label, and its link (null: not a link, e.g. not http(s)) with the link's rel. */
export type SourceLink = { label: string; href: string | null; rel: string };

/** Secondary lines: who it is from, dates, the footer's links. */
export const muted = { color: "#5b6270", fontSize: "13px" };

export function EmailCard({ preview, children }: { preview: string; children: ReactNode }) {
  return (
    <Html lang="en">
      <Head />
      <Preview>{preview}</Preview>
      <Body style={page}>
        <Container style={card}>{children}</Container>
      </Body>
    </Html>
  );
}
