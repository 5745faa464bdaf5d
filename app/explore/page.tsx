import Link from "next/link";
import type { Metadata } from "next";
import { audienceOf, listPublicTasks } from "@/server/public/service";
import { plural } from "@/server/render/dates";
import { pageRateLimit, TooManyRequests } from "../rate-limit";
import { WatchCard } from "../ui/watch-card";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Explore public watches" };
const PAGE = 20;

export default async function Explore({
  searchParams,
}: {
  searchParams: Promise<{ q?: string; sort?: string; page?: string }>;
}) {
  const params = await searchParams;
  const sort = params.sort === "popular" ? "popular" : "recent";
  const page = Math.max(1, Number(params.page) || 1);
  const q = params.q?.slice(0, 200) ?? "";
  const retryAfter = await pageRateLimit("public-list");
  if (retryAfter) return <TooManyRequests retryAfter={retryAfter} />;
  const { tasks, total } = await listPublicTasks({ sort, q: q || undefined, limit: PAGE, offset: (page - 1) * PAGE });
  const audiences = await audienceOf(tasks);
  const link = (p: number) => `/explore?${new URLSearchParams({ ...(q ? { q } : {}), sort, page: String(p) })}`;
  return (
    <main className="wide">
      <div className="page-header">
        <div>
          <h1>Explore public watches</h1>
          <p className="lead">What people are keeping an eye on, and what the agent found. Follow one to hear too.</p>
        </div>
      </div>
      <form className="inline-form" method="get" action="/explore" role="search">
        <div className="field">
          <label htmlFor="explore-q">Search</label>
          <input id="explore-q" type="search" name="q" defaultValue={q} placeholder="e.g. release date" />
        </div>
        <div className="field fit">
          <label htmlFor="explore-sort">Sort</label>
          <select id="explore-sort" name="sort" defaultValue={sort}>
            <option value="recent">Recent</option>
            <option value="popular">Popular</option>
          </select>
        </div>
        <button type="submit">Search</button>
      </form>
      <p className="muted small">{plural(total, "public watch", "public watches")}</p>
      {tasks.length ? (
        <div className="grid">
          {tasks.map((t) => (
            <WatchCard key={t.id} task={t} audience={audiences.get(t.id)} />
          ))}
        </div>
      ) : (
        <p className="notice">No public watches match.</p>
      )}
      <nav className="pager" aria-label="Pages">
        {page > 1 ? <Link href={link(page - 1)}>← Newer</Link> : <span />}
        {page * PAGE < total ? <Link href={link(page + 1)}>Older →</Link> : <span />}
      </nav>
    </main>
  );
}
