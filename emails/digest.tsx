/** The daily digest: every finding (and retraction) since the last digest, of one's own watches and followed ones. */
import { Heading, Hr, Link, Section, Text } from "@react-email/components";
import { EmailCard, muted } from "./layout";

/** One watch's findings of the day; `at` is already written in the reader's time zone, `answerHtml` rendered. */
export type DigestGroup = {
  watchName: string;
  watchUrl: string;
  items: { title: string; answerHtml: string; at: string; retraction: boolean }[];
};

export function DailyDigest(p: { count: number; groups: DigestGroup[]; settingsUrl: string }) {
  const count = `${p.count} finding${p.count === 1 ? "" : "s"}`;
  return (
    <EmailCard preview={`Your Watch digest: ${count}`}>
      <Heading as="h1" style={{ fontSize: "20px", margin: "0 0 12px" }}>
        Your daily digest: {count}
      </Heading>
      {p.groups.map((group, g) => (
        <Section key={g}>
          <Heading as="h2" style={{ fontSize: "17px", margin: "8px 0" }}>
            <Link href={group.watchUrl}>{group.watchName}</Link>
          </Heading>
          {group.items.map((item, i) => (
            <Section key={i}>
              <Text style={{ ...muted, margin: "0" }}>{item.at}</Text>
              <Heading as="h3" style={{ fontSize: "15px", margin: "0 0 4px" }}>
                {item.retraction ? "Retracted: " : ""}
                {item.title}
              </Heading>
              {/* Rendered by the same sanitizing renderer as the pages. */}
              <div
                style={{ fontSize: "14px", lineHeight: "22px" }}
                dangerouslySetInnerHTML={{ __html: item.answerHtml }}
              />
            </Section>
          ))}
          <Hr />
        </Section>
      ))}
      <Text style={muted}>
        You get one digest a day instead of an email per finding.{" "}
        <Link href={p.settingsUrl}>Change this in Settings</Link>.
      </Text>
    </EmailCard>
  );
}
