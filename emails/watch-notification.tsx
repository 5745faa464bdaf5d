/**
 * The email sent when a watch's condition is met (and the verification email for a new address). Templates lay out
 * what the server hands them, already rendered: the answer as sanitized HTML, each source's link (or none).
 */
import { Heading, Hr, Link, Section, Text } from "@react-email/components";
import { EmailCard, muted, type SourceLink } from "./layout";

export type WatchNotificationProps = {
  watchName: string;
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

const answer = { fontSize: "14px", lineHeight: "24px" };

export function WatchNotification(p: WatchNotificationProps) {
  return (
    <EmailCard preview={p.title}>
      <Text style={muted}>
        {p.whose ?? "Your watch"} “{p.watchName}”
      </Text>
      <Heading as="h1" style={{ fontSize: "20px", margin: "0 0 12px" }}>
        {p.title}
      </Heading>
      {/* The text part is derived from this HTML. */}
      <div style={answer} dangerouslySetInnerHTML={{ __html: p.answerHtml }} />
      {p.evidence ? (
        <Section>
          <Text style={{ fontWeight: 600, marginBottom: 0 }}>Evidence</Text>
          <Text>{p.evidence}</Text>
        </Section>
      ) : null}
      {p.sources.length ? (
        <Section>
          <Text style={{ fontWeight: 600, marginBottom: 0 }}>Sources</Text>
          {p.sources.map((s, i) => (
            <Text key={i} style={{ margin: "4px 0" }}>
              {s.href ? (
                <Link href={s.href} rel={s.rel}>
                  {s.label}
                </Link>
              ) : (
                s.label
              )}
            </Text>
          ))}
        </Section>
      ) : null}
      <Hr />
      <Text style={muted}>
        <Link href={p.watchUrl}>Open the watch</Link> · <Link href={p.action.url}>{p.action.label}</Link>
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
      <Text>
        <Link href={p.verifyUrl}>Confirm this address</Link>
      </Text>
      <Text style={muted}>If this wasn’t you, ignore this email.</Text>
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
      <Text>
        <Link href={p.confirmUrl}>Confirm and follow</Link> · <Link href={p.watchUrl}>See the watch</Link>
      </Text>
      <Text style={muted}>If this wasn’t you, ignore this email: you will not hear from us again about it.</Text>
    </EmailCard>
  );
}
