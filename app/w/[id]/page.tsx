import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { z } from "zod";
import { viewer } from "@/server/api/server-caller";
import { env } from "@/server/env";
import { publicFindings } from "@/server/public/service";
import { isFollowing } from "@/server/follows/service";
import { readPublicTask } from "@/server/tasks/service";
import { publicExecutionView } from "@/server/tasks/views";
import { Markdown, Sources, when } from "../../components";
import { ForkButton } from "../../dashboard/ui/actions";
import { FollowButton, FollowByEmail } from "../../dashboard/ui/follow";
import { pageRateLimit, TooManyRequests } from "../../rate-limit";
import { EmbedSnippets, VerdictCard } from "./verdict";

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
  const [findings, following] = await Promise.all([publicFindings(id, 50), reader ? isFollowing(reader, id) : false]);
  return { limited: false as const, task, reader, following, findings: findings.map(publicExecutionView) };
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
  const { task, reader, following, findings } = data;
  const isOwner = !!reader && task.user_id === null && reader.username === task.owner?.username;
  return (
    <main>
      <p className="muted">
        Public watch by <Link href={`/u/${task.owner?.username}`}>@{task.owner?.username}</Link>
      </p>
      <h1>{task.name}</h1>
      <VerdictCard task={task} />
      <section aria-label="Follow this watch" className="row">
        {isOwner ? null : reader ? (
          <FollowButton taskId={task.id} following={following} email={reader.email} />
        ) : (
          <FollowByEmail taskId={task.id} />
        )}
      </section>
      <dl className="facts">
        <dt>Searching</dt>
        <dd>{task.search_query}</dd>
        <dt>Condition</dt>
        <dd>{task.condition_description}</dd>
        <dt>State</dt>
        <dd>{task.state}</dd>
        <dt>Last checked</dt>
        <dd>{when(task.last_execution?.completed_at ?? null)}</dd>
        <dt>Next check</dt>
        <dd>{when(task.next_run)}</dd>
        <dt>Followers</dt>
        <dd>
          {task.subscriber_count} following or forked · {task.view_count} views
        </dd>
      </dl>
      <p>
        Follow by <a href={`/api/v1/public/tasks/id/${task.id}/rss`}>RSS</a> or{" "}
        <a href={`/api/v1/public/tasks/id/${task.id}/feed.json`}>JSON Feed</a> ·{" "}
        {reader ? <ForkButton id={task.id} /> : <Link href="/sign-in">Sign in to fork it</Link>} or fork with the API:{" "}
        <code>POST /api/v1/tasks/{task.id}/fork</code>
      </p>
      <EmbedSnippets task={task} appUrl={env.APP_URL} />
      <h2>Findings</h2>
      {findings.length ? (
        findings.map((f) => (
          <article className="card" id={f.id} key={f.id}>
            <h3>
              {f.retracted_by_execution_id ? "Retracted: " : ""}
              {f.notification?.title ?? "Condition met"}
            </h3>
            <p className="muted">
              {when(f.completed_at)}
              {f.retracted_by_execution_id
                ? " · a later check found this no longer holds (withdrawn, corrected or denied)"
                : ""}
            </p>
            <Markdown text={f.result?.answer ?? ""} />
            {f.grounding_sources?.length ? <Sources sources={f.grounding_sources} /> : null}
          </article>
        ))
      ) : (
        <p>No findings yet: the condition has not been met.</p>
      )}
    </main>
  );
}
