/** The email sent when a watch's condition is met (and the verification email for a new address). */
import { Heading, Hr, Link, Section, Text } from "@react-email/components";
import { EmailCard, muted } from "./layout";
import { renderMarkdown, sourceHref, USER_CONTENT_REL } from "../server/render/markdown";

export type WatchNotificationProps = {
  watchName: string;
  title: string;
  answer: string;
  evidence: string;
  sources: { url: string; title: string }[];
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
      {/* The same sanitizing renderer as the pages; the text part is derived from this HTML. */}
      <div style={answer} dangerouslySetInnerHTML={{ __html: renderMarkdown(p.answer) }} />
      {p.evidence ? (
        <Section>
          <Text style={{ fontWeight: 600, marginBottom: 0 }}>Evidence</Text>
          <Text>{p.evidence}</Text>
        </Section>
      ) : null}
      {p.sources.length ? (
        <Section>
          <Text style={{ fontWeight: 600, marginBottom: 0 }}>Sources</Text>
          {p.sources.map((s) => {
            const href = sourceHref(s.url);
            return (
              <Text key={s.url} style={{ margin: "4px 0" }}>
                {href ? (
                  <Link href={href} rel={USER_CONTENT_REL}>
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
