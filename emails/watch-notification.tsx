/** The email sent for a run's notice (a finding, its retraction, a failing watch…) and the verification email. */
import { Heading, Hr, Link, Section, Text } from "@react-email/components";
import { EmailCard, FullWidthButton, link, muted, VerdictStrip, type Tone } from "./layout";
import { renderMarkdown, siteOf, sourceHref, USER_CONTENT_REL } from "../server/render/markdown";

export type WatchNotificationProps = {
  watchName: string;
  /** The strip at the top: what happened, in words ("Condition met · found 2 Nov 2026"), and its tone. */
  verdict: { text: string; tone: Tone };
  title: string;
  answer: string;
  evidence: string;
  /** `domain` is the site the source is on (the pages name it the same way). */
  sources: { url: string; title: string; domain?: string }[];
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
      {/* The same sanitizing renderer as the pages; the text part is derived from this HTML. */}
      <div style={answer} dangerouslySetInnerHTML={{ __html: renderMarkdown(p.answer) }} />
      {p.evidence ? (
        <Section>
          <Text style={label}>Evidence</Text>
          <Text style={{ fontSize: "14px", lineHeight: "22px", margin: "0" }}>{p.evidence}</Text>
        </Section>
      ) : null}
      {p.sources.length ? (
        <Section>
          <Text style={label}>Sources</Text>
          {p.sources.map((s) => {
            const href = sourceHref(s.url);
            const site = s.domain || (href ? siteOf(href) : "");
            return (
              <Text key={s.url} style={{ margin: "0 0 10px", fontSize: "14px", lineHeight: "20px" }}>
                {site ? (
                  <>
                    <span style={muted} className="email-muted">
                      {site}
                    </span>
                    <br />
                  </>
                ) : null}
                {href ? (
                  <Link href={href} rel={USER_CONTENT_REL} style={link}>
                    {s.title || s.url}
                  </Link>
                ) : (
                  s.title || s.url
                )}
              </Text>
            );
          })}
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
