import Link from "next/link";
import { viewer } from "@/server/api/server-caller";
import { clerkPublishableKey, env } from "@/server/env";
import { trendingWatches } from "@/server/public/service";
import { ZoneLink } from "./ui/nav";
import { Pill } from "./ui/pill";
import { WaitlistCard } from "./ui/waitlist";
import { WatchCard } from "./ui/watch-card";

export const dynamic = "force-dynamic";

const STEPS = [
  {
    title: "Say what you are waiting for",
    text: "One sentence: what to search for and what counts as news. No feeds to pick, no pages to diff.",
  },
  {
    title: "The agent keeps checking",
    text: "It searches the web with grounded search, reads the sources, decides whether it has happened, and picks its own next check.",
  },
  {
    title: "You hear once, with sources",
    text: "By email, chat (Slack, Discord, Teams, Telegram, Mattermost, Google Chat, Matrix), phone push (ntfy, Pushover, Gotify), an Apprise API or a signed webhook when it happens, and again only if it is withdrawn. Nothing in between.",
  },
];

const API_EXAMPLE = `curl -X POST $WATCH_URL/api/v1/tasks \\
  -H "authorization: Bearer $SERVICE_API_KEY" \\
  -H "content-type: application/json" \\
  -d '{"search_query": "PostgreSQL 19 beta release",
       "condition_description": "a beta release is announced",
       "notifications": [{"type": "webhook", "url": "https://example.com/hook"}]}'`;

export default async function Home({ searchParams }: { searchParams: Promise<{ joined?: string; error?: string }> }) {
  const [{ joined, error }, user, { tasks, audiences }] = await Promise.all([
    searchParams,
    viewer().catch(() => null),
    trendingWatches(),
  ]);
  const clerk = !!clerkPublishableKey();
  // The hero shows one public watch that found its answer (else the most followed one); the grid shows the others.
  const example = tasks.find((t) => t.resolution.status !== "watching") ?? tasks[0];
  const others = tasks.filter((t) => t !== example);
  const waitlist = env.SIGNUPS === "waitlist" && !user;
  return (
    <main className="wide">
      <div className="hero-grid">
        <section className="hero" aria-labelledby="hero-title">
          <span className="eyebrow">An AI agent that watches the web for you</span>
          <h1 id="hero-title">Watch for the news you are waiting for</h1>
          <p className="lead">
            Describe it in a sentence, like <q>tell me when the iPhone 18 release date is announced</q>. An agent
            searches the web, decides when it has really happened, and tells you once, with its sources.
          </p>
          <div className="row">
            {user ? (
              <ZoneLink className="button large" href="/dashboard/new" clerk={clerk}>
                Start a watch
              </ZoneLink>
            ) : waitlist ? (
              <a className="button large" href="#waitlist">
                Join the waitlist
              </a>
            ) : (
              <ZoneLink className="button large" href="/sign-up" clerk={clerk}>
                Start watching, free
              </ZoneLink>
            )}
            <a className="button large secondary" href="/docs">
              Try the API
            </a>
          </div>
        </section>
        <aside className="hero-example" aria-label={example ? "A public watch, live" : "An example"}>
          <p className="eyebrow">{example ? "Live right now" : "For example"}</p>
          {example ? (
            <WatchCard task={example} audience={audiences.get(example.id)} />
          ) : (
            <article className="card watch-card">
              <div className="row">
                <Pill tone="ok">Met</Pill>
                <span className="muted small">Found 9 Sep 2026</span>
              </div>
              <h2 className="card-title">iPhone 18 release date</h2>
              <p className="condition">Apple officially announces the iPhone 18 release date</p>
              <p className="small">Apple announced the iPhone 18 at its September event; it ships on 19 September.</p>
              <div className="meta">
                <span>apple.com</span>
                <span>theverge.com</span>
              </div>
            </article>
          )}
        </aside>
      </div>

      {waitlist ? <WaitlistCard joined={joined} error={error} /> : null}

      <section className="section" aria-labelledby="how-title">
        <h2 id="how-title" className="sr-only">
          How it works
        </h2>
        <ol className="steps">
          {STEPS.map((s) => (
            <li key={s.title}>
              <h3>{s.title}</h3>
              <p>{s.text}</p>
            </li>
          ))}
        </ol>
      </section>

      {others.length ? (
        <section className="section" aria-labelledby="live-title">
          <div className="spread section-title">
            <h2 id="live-title">Watched right now</h2>
            <Link className="quiet-link" href="/explore">
              Explore all public watches →
            </Link>
          </div>
          <div className="grid">
            {others.map((t) => (
              <WatchCard key={t.id} task={t} audience={audiences.get(t.id)} />
            ))}
          </div>
        </section>
      ) : null}

      <section className="section" aria-labelledby="api-title">
        <h2 id="api-title">Built for scripts and assistants too</h2>
        <p className="muted">
          Everything the dashboard does is a REST call away, with an SDK and the <code>watchctl</code> command line, and
          your AI assistant can do it for you through Watch&apos;s MCP server. Findings arrive as signed webhooks
          (Standard Webhooks), RSS or JSON Feed.
        </p>
        <pre className="code-block scroll" tabIndex={0} aria-label="Creating a watch with curl">
          <code>{API_EXAMPLE}</code>
        </pre>
      </section>
    </main>
  );
}
