/**
 * The frame every Watch email shares: the inbox preview line, a grey page and one white card, the verdict strip and
 * the full-width button. Light by default; clients that honour `prefers-color-scheme` (Apple Mail, iOS Mail,
 * Outlook.com, Thunderbird) get the dark palette from the style block, the others keep the inline light colours.
 */
import { Body, Button, Container, Head, Html, Preview, Section, Text } from "@react-email/components";
import type { ReactNode } from "react";

const page = {
  backgroundColor: "#f6f7f9",
  fontFamily: "-apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif",
  color: "#111318",
  margin: "0",
};
const card = {
  backgroundColor: "#ffffff",
  borderRadius: "8px",
  margin: "24px auto",
  maxWidth: "560px",
  padding: "24px",
};
/**
 * A source as an email shows it: its label, the site it is on (named as the pages name it), and its link (null: not a
 * link, e.g. not http(s)) with the link's rel.
 */
export type SourceLink = { label: string; site: string; href: string | null; rel: string };

/** Secondary lines: who it is from, dates, the footer's links. */
export const muted = { color: "#5b6270", fontSize: "13px" };
/** Links in the text (the pages' link colour). */
export const link = { color: "#3451d1", textDecoration: "underline" };

/** Each tone in light (inline) and dark (the style block): text on a tinted background, as the pages' pills. */
const TONES = {
  ok: { fg: "#176d30", bg: "#e7f5ec", darkFg: "#6fd391", darkBg: "#15291d" },
  warn: { fg: "#855400", bg: "#fcf3dd", darkFg: "#f2b75c", darkBg: "#2c2313" },
  danger: { fg: "#b42318", bg: "#fdecea", darkFg: "#ff8f85", darkBg: "#321a1a" },
  neutral: { fg: "#5b6270", bg: "#eef0f3", darkFg: "#9aa3b2", darkBg: "#1d2129" },
} as const;
export type Tone = keyof typeof TONES;

const STYLE = `
.email-card a { color: #3451d1; }
.email-card blockquote { margin: 12px 0; padding: 4px 12px; border-left: 3px solid #c9ced8; }
@media (prefers-color-scheme: dark) {
  .email-page, .email-page > table > tbody > tr > td { background-color: #0e1014 !important; color: #e8eaee !important; }
  .email-card { background-color: #16191f !important; color: #e8eaee !important; }
  .email-card a { color: #9db0ff !important; }
  .email-card .email-muted, .email-card .email-muted a { color: #9aa3b2 !important; }
  .email-card .email-button-cell { background-color: #4459d9 !important; }
  .email-card a.email-button { background-color: #4459d9 !important; color: #ffffff !important; }
  .email-card hr { border-color: #2a2f39 !important; }
  .email-card blockquote { border-color: #3a404c !important; }
${Object.entries(TONES)
  .map(
    ([t, c]) =>
      `  .email-card .email-strip-${t} { background-color: ${c.darkBg} !important; color: ${c.darkFg} !important; }`,
  )
  .join("\n")}
}`;

export function EmailCard({ preview, children }: { preview: string; children: ReactNode }) {
  return (
    <Html lang="en">
      <Head>
        <meta name="color-scheme" content="light dark" />
        <meta name="supported-color-schemes" content="light dark" />
        <style>{STYLE}</style>
      </Head>
      <Preview>{preview}</Preview>
      <Body style={page} className="email-page">
        <Container style={card} className="email-card">
          {children}
        </Container>
      </Body>
    </Html>
  );
}

/** The verdict strip at the top of a notice: "Condition met · found 2 Nov 2026", "Retracted", "Failing". */
export function VerdictStrip({ tone, children }: { tone: Tone; children: ReactNode }) {
  const c = TONES[tone];
  return (
    <Text
      className={`email-strip-${tone}`}
      style={{
        backgroundColor: c.bg,
        color: c.fg,
        borderRadius: "6px",
        padding: "8px 12px",
        margin: "0 0 16px",
        fontSize: "14px",
        fontWeight: 600,
        lineHeight: "20px",
      }}
    >
      {children}
    </Text>
  );
}

/**
 * A bulletproof full-width button: a table cell painted in the button's colour (what Outlook for Windows draws) around
 * a block link with its own padding (what every other client draws), so the whole width is the target everywhere.
 */
export function FullWidthButton({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Section style={{ margin: "24px 0 8px" }}>
      <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} style={{ borderCollapse: "separate" }}>
        <tbody>
          <tr>
            <td
              className="email-button-cell"
              align="center"
              {
                ...{ bgcolor: "#3451d1" } /* the attribute Outlook for Windows paints, beside the style */
              }
              style={{ backgroundColor: "#3451d1", borderRadius: "8px" }}
            >
              <Button
                href={href}
                className="email-button"
                style={{
                  display: "block",
                  backgroundColor: "#3451d1",
                  color: "#ffffff",
                  borderRadius: "8px",
                  padding: "14px 20px",
                  fontSize: "16px",
                  fontWeight: 600,
                  textAlign: "center",
                }}
              >
                {children}
              </Button>
            </td>
          </tr>
        </tbody>
      </table>
    </Section>
  );
}
