/**
 * The email sent for a run's notice (a finding, its retraction, a failing watch…) and the verification email for a new
 * address. Templates lay out what the server hands them, already rendered: the answer as sanitized HTML, each source's
 * site and link (or none).
 */
import { Heading, Hr, Link, Section, Text } from "@react-email/components";
import { EmailCard, FullWidthButton, link, muted, VerdictStrip, type SourceLink, type Tone } from "./layout";

export type WatchNotificationProps = {
  watchName: string;
  /** The strip at the top: what happened, in words ("Condition met · found 2 Nov 2026"), and its tone. */
  verdict: { text: string; tone: Tone };
  title: string;
  /** The answer's markdown, rendered by the same sanitizing renderer as the pages. */
  answerHtml: string;
  evidence: string;
  sources: SourceLink[];
  watchUrl: string;
  /** The owner pauses the watch; a follower unsubscribes. */
  action: { label: string; url: string };
  /** "Your watch" for the owner, "A watch you follow" for a follower. */
  whose?: string;
};

const answer = { fontSize: "15px", lineHeight: "24px" };
const label = { fontSize: "13px", fontWeight: 600, letterSpacing: "0.02em", margin: "20px 0 4px" };

export function WatchNotification(p: WatchNotificationProps) {
  return (
    <EmailCard preview={`${p.verdict.text}: ${p.title}`}>
      <VerdictStrip tone={p.verdict.tone}>{p.verdict.text}</VerdictStrip>
      <Text style={{ ...muted, margin: "0 0 4px" }} className="email-muted">
        {p.whose ?? "Your watch"} “{p.watchName}”
      </Text>
      <Heading as="h1" style={{ fontSize: "21px", lineHeight: "28px", margin: "0 0 12px" }}>
        {p.title}
      </Heading>
      {/* The text part is derived from this HTML. */}
      <div style={answer} dangerouslySetInnerHTML={{ __html: p.answerHtml }} />
      {p.evidence ? (
        <Section>
          <Text style={label}>Evidence</Text>
          <Text style={{ fontSize: "14px", lineHeight: "22px", margin: "0" }}>{p.evidence}</Text>
        </Section>
      ) : null}
      {p.sources.length ? (
        <Section>
          <Text style={label}>Sources</Text>
          {p.sources.map((s, i) => (
            <Text key={i} style={{ margin: "0 0 10px", fontSize: "14px", lineHeight: "20px" }}>
              {s.site ? (
                <>
                  <span style={muted} className="email-muted">
                    {s.site}
                  </span>
                  <br />
                </>
              ) : null}
              {s.href ? (
                <Link href={s.href} rel={s.rel} style={link}>
                  {s.label}
                </Link>
              ) : (
                s.label
              )}
            </Text>
          ))}
        </Section>
      ) : null}
      <FullWidthButton href={p.watchUrl}>Open the watch</FullWidthButton>
      <Hr style={{ borderColor: "#e1e4ea", margin: "20px 0 12px" }} />
      <Text style={{ ...muted, margin: "0" }} className="email-muted">
        <Link href={p.action.url} style={{ ...link, color: "#5b6270" }}>
          {p.action.label}
        </Link>
      </Text>
    </EmailCard>
  );
}

export function VerifyAddress(p: { verifyUrl: string; watchName: string }) {
  return (
    <EmailCard preview="Confirm this address for Watch notifications">
      <Heading as="h1" style={{ fontSize: "20px" }}>
        Confirm your address
      </Heading>
      <Text>
        Someone asked Watch to send notifications for “{p.watchName}” to this address. Nothing is sent until you
        confirm.
      </Text>
      <FullWidthButton href={p.verifyUrl}>Confirm this address</FullWidthButton>
      <Text style={muted} className="email-muted">
        If this wasn’t you, ignore this email.
      </Text>
    </EmailCard>
  );
}

export function ConfirmFollow(p: { confirmUrl: string; watchName: string; watchUrl: string }) {
  return (
    <EmailCard preview={`Confirm that you want updates from “${p.watchName}”`}>
      <Heading as="h1" style={{ fontSize: "20px" }}>
        Follow “{p.watchName}”?
      </Heading>
      <Text>
        Someone (hopefully you) asked to be emailed when the public watch “{p.watchName}” finds something. Nothing is
        sent until you confirm; every email has a link to stop.
      </Text>
      <FullWidthButton href={p.confirmUrl}>Confirm and follow</FullWidthButton>
      <Text style={muted} className="email-muted">
        <Link href={p.watchUrl} style={{ ...link, color: "#5b6270" }}>
          See the watch first
        </Link>
        . If this wasn’t you, ignore this email: you will not hear from us again about it.
      </Text>
    </EmailCard>
  );
}
