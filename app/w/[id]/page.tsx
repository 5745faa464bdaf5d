import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { z } from "zod";
import { viewer } from "@/server/api/server-caller";
import { env } from "@/server/env";
import { isFollowing } from "@/server/follows/service";
import { readPublicTask } from "@/server/tasks/service";
import { audienceOf } from "@/server/public/service";
import { listPublicFindings } from "@/server/tasks/findings";
import { plural } from "@/server/render/dates";
import { isOpen } from "@/lib/outcome";
import type { TaskView } from "@/server/tasks/schemas";
import { ForkButton } from "../../dashboard/ui/actions";
import { FollowButton, FollowByEmail } from "../../dashboard/ui/follow";
import { pageRateLimit, TooManyRequests } from "../../rate-limit";
import { FindingsSection } from "../../ui/finding-card";
import { StatePill } from "../../ui/pill";
import { Time } from "../../ui/time";
import { latestAnswerOf, VerdictCard } from "../../ui/verdict-card";
import { EmbedSnippets } from "./verdict";

export const dynamic = "force-dynamic";

// One rate-limit check, one read and one counted view per page render, shared by the metadata and the page:
// a view is counted only once the visitor's bucket allows the read.
const load = cache(async (id: string) => {
  const retryAfter = await pageRateLimit("public-task");
  if (retryAfter) return { limited: true as const, retryAfter };
  if (!z.guid().safeParse(id).success) return null;
  const reader = await viewer();
  const task = await readPublicTask(id, reader?.id ?? null).then(
    (r) => r.view,
    () => null,
  );
  if (!task) return null;
  const [findings, following, audiences] = await Promise.all([
    listPublicFindings(id, { limit: 50, offset: 0 }),
    reader ? isFollowing(reader, id) : false,
    audienceOf([task]),
  ]);
  return {
    limited: false as const,
    task,
    reader,
    following,
    audience: audiences.get(task.id)!,
    findings: findings.findings,
  };
});

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const data = await load((await params).id);
  if (!data) return { title: "Watch not found", robots: { index: false } };
  if (data.limited) return { title: "Too many requests", robots: { index: false } };
  const { task } = data;
  const url = `${env.APP_URL}/w/${task.id}`;
  const description = `Watching: ${task.condition_description}`;
  return {
    metadataBase: new URL(env.APP_URL),
    title: task.name,
    description,
    alternates: {
      canonical: url,
      types: {
        "application/rss+xml": `${env.APP_URL}/api/v1/public/tasks/id/${task.id}/rss`,
        "application/feed+json": `${env.APP_URL}/api/v1/public/tasks/id/${task.id}/feed.json`,
      },
    },
    // The image is ./opengraph-image.tsx (Next adds og:image and twitter:image from it).
    openGraph: { title: task.name, description, url, type: "article", siteName: "Watch" },
    twitter: { card: "summary_large_image", title: task.name, description },
  };
}

export default async function PublicWatch({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const data = await load(id);
  if (!data) notFound();
  if (data.limited) return <TooManyRequests retryAfter={data.retryAfter} />;
  const { task, reader, following, findings, audience } = data;
  const isOwner = !!reader && task.user_id === null && reader.username === task.owner?.username;
  const rss = `/api/v1/public/tasks/id/${task.id}/rss`;
  return (
    <main>
      <div className="page-header">
        <div>
          <p className="muted small">
            Public watch by <Link href={`/u/${task.owner?.username}`}>@{task.owner?.username}</Link>
          </p>
          <h1>{task.name}</h1>
        </div>
      </div>
      {/* The verdict, and beside it (under it on a phone) the way to hear when it changes. */}
      <div className={task.resolution.status === "resolved" ? undefined : "verdict-layout"}>
        <VerdictCard
          verdict={task.verdict}
          resolution={task.resolution}
          next={nextStep(task)}
          latest={latestAnswerOf(task)}
        />
        {task.resolution.status === "resolved" ? null : (
          <aside aria-labelledby="follow-title" className="card follow-card">
            <h2 id="follow-title">Hear when it changes</h2>
            <p className="muted small">
              {isOwner
                ? "This is your watch: its findings go to your own channels."
                : "Get its findings, and a note if one is withdrawn. Stop any time."}
            </p>
            {reader ? (
              <div className="row">
                {isOwner ? (
                  <a className="button secondary" href={`/dashboard/w/${task.id}`}>
                    Open in your dashboard
                  </a>
                ) : (
                  <FollowButton taskId={task.id} following={following} email={reader.email} />
                )}
                <ForkButton id={task.id} />
              </div>
            ) : (
              <FollowByEmail taskId={task.id} />
            )}
            <p className="muted small">
              Or by <a href={rss}>RSS</a> or <a href={`/api/v1/public/tasks/id/${task.id}/feed.json`}>JSON Feed</a>
              {reader ? null : (
                <>
                  {" "}
                  · <Link href="/sign-in">Sign in to fork it</Link>
                </>
              )}
            </p>
          </aside>
        )}
      </div>

      <FindingsSection
        taskId={task.id}
        findings={findings}
        met={task.resolution.status !== "watching"}
        empty="No findings yet: the condition has not been met."
      />

      <section className="section" aria-labelledby="about-title">
        <h2 id="about-title">About this watch</h2>
        <dl className="facts card">
          <dt>Searching</dt>
          <dd>{task.search_query}</dd>
          <dt>Tell me when</dt>
          <dd>{task.condition_description}</dd>
          <dt>State</dt>
          <dd>
            <StatePill state={task.state} />
          </dd>
          <dt>Last checked</dt>
          <dd>
            {task.verdict.state === "first_check" ? (
              "First check running…"
            ) : checking(task) ? (
              "checking now"
            ) : (
              <Time iso={task.verdict.as_of} empty="not yet" />
            )}
          </dd>
          <dt>Next check</dt>
          <dd>
            {checking(task) ? (
              "after this one"
            ) : task.state === "active" ? (
              <Time iso={task.next_run} />
            ) : (
              "— (" + task.state + ")"
            )}
          </dd>
          <dt>Fork by API</dt>
          <dd>
            <code>POST /api/v1/tasks/{task.id}/fork</code>
          </dd>
          <dt>Audience</dt>
          <dd>
            {plural(audience.following, "following", "following")}
            {audience.forks ? ` · ${plural(audience.forks, "fork")}` : ""} · {plural(task.view_count, "view")}
          </dd>
        </dl>
      </section>

      <EmbedSnippets task={task} appUrl={env.APP_URL} />
    </main>
  );
}

const checking = (task: TaskView) => isOpen(task.last_execution);

/** What happens next while the watch is still watching. */
function nextStep(task: TaskView) {
  if (checking(task)) return "A check is running now.";
  if (task.next_run)
    return (
      <>
        Next check <Time iso={task.next_run} />.
      </>
    );
  return { active: "A check is under way.", paused: "The watch is paused.", completed: "The watch is complete." }[
    task.state
  ];
}
