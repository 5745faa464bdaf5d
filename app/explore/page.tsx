import Link from "next/link";
import type { Metadata } from "next";
import { listPublicTasks } from "@/server/public/service";
import { WatchCard } from "../components";
import { pageRateLimit, TooManyRequests } from "../rate-limit";

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
  const { tasks, total, capped } = await listPublicTasks({
    sort,
    q: q || undefined,
    limit: PAGE,
    offset: (page - 1) * PAGE,
  });
  const link = (p: number) => `/explore?${new URLSearchParams({ ...(q ? { q } : {}), sort, page: String(p) })}`;
  return (
    <main>
      <h1>Explore public watches</h1>
      <form className="inline" method="get" action="/explore" role="search">
        <label>
          Search
          <input type="search" name="q" defaultValue={q} placeholder="e.g. release date" />
        </label>
        <label>
          Sort
          <select name="sort" defaultValue={sort}>
            <option value="recent">Recent</option>
            <option value="popular">Popular</option>
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      <p className="muted">
        {capped ? `More than ${total.toLocaleString("en")}` : total} public watch{total === 1 ? "" : "es"}
      </p>
      {tasks.length ? tasks.map((t) => <WatchCard key={t.id} task={t} />) : <p>No public watches match.</p>}
      <nav className="pager" aria-label="Pages">
        {page > 1 ? <Link href={link(page - 1)}>← Newer</Link> : <span />}
        {page * PAGE < total || (capped && tasks.length === PAGE) ? (
          <Link href={link(page + 1)}>Older →</Link>
        ) : (
          <span />
        )}
      </nav>
    </main>
  );
}
