/** The daily digest: every finding (and retraction) since the last digest, of one's own watches and followed ones. */
import { Body, Container, Head, Heading, Hr, Html, Link, Preview, Section, Text } from "@react-email/components";
import { renderMarkdown } from "../server/render/markdown";

export type DigestItem = { watchName: string; watchUrl: string; title: string; answer: string; at: string; retraction: boolean };

const page = { backgroundColor: "#f6f7f9", fontFamily: "-apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif" };
const card = { backgroundColor: "#ffffff", borderRadius: "8px", margin: "24px auto", maxWidth: "560px", padding: "24px" };
const muted = { color: "#5b6270", fontSize: "13px" };

export function DailyDigest(p: { items: DigestItem[]; settingsUrl: string }) {
  const count = `${p.items.length} finding${p.items.length === 1 ? "" : "s"}`;
  return (
    <Html lang="en">
      <Head />
      <Preview>{`Your Watch digest: ${count}`}</Preview>
      <Body style={page}>
        <Container style={card}>
          <Heading as="h1" style={{ fontSize: "20px", margin: "0 0 12px" }}>
            Your daily digest: {count}
          </Heading>
          {p.items.map((item, i) => (
            <Section key={i}>
              <Text style={muted}>
                {item.watchName} · {item.at.slice(0, 16).replace("T", " ")} UTC
              </Text>
              <Heading as="h2" style={{ fontSize: "16px", margin: "0 0 4px" }}>
                {item.retraction ? "Retracted: " : ""}
                {item.title}
              </Heading>
              {/* The same sanitizing renderer as the pages. */}
              <div style={{ fontSize: "14px", lineHeight: "22px" }} dangerouslySetInnerHTML={{ __html: renderMarkdown(item.answer) }} />
              <Text>
                <Link href={item.watchUrl}>Open the watch</Link>
              </Text>
              <Hr />
            </Section>
          ))}
          <Text style={muted}>
            You get one digest a day instead of an email per finding. <Link href={p.settingsUrl}>Change this in Settings</Link>.
          </Text>
        </Container>
      </Body>
    </Html>
  );
}
