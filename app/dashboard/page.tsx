import Link from "next/link";
import { serverCaller, viewer } from "@/server/api/server-caller";
import { TaskStateSchema } from "@/server/tasks/schemas";
import { DismissWelcome } from "./ui/actions";
import { outcomeOf } from "./ui/format";
import { Time } from "./ui/time";

export const metadata = { title: "Your watches" };

const EXAMPLES = [
  { query: "iPhone 18 release date", when: "Apple officially announces the iPhone 18 release date" },
  { query: "PostgreSQL 19 beta", when: "a PostgreSQL 19 beta release is announced" },
  { query: "PyCon US 2027 tickets", when: "registration for PyCon US 2027 opens" },
];

const FILTERS = [
  { label: "All", state: undefined },
  { label: "Active", state: "active" },
  { label: "Paused", state: "paused" },
  { label: "Completed", state: "completed" },
] as const;

/** Watches per page. */
const PAGE = 50;

export default async function Watches({ searchParams }: { searchParams: Promise<{ state?: string; page?: string }> }) {
  const params = await searchParams;
  const state = TaskStateSchema.optional().catch(undefined).parse(params.state);
  const page = Math.max(1, Math.floor(Number(params.page)) || 1);
  // One more than a page: whether there is a next one.
  const [user, listed] = await Promise.all([
    viewer(),
    serverCaller().then((c) => c.tasks.list({ state, limit: PAGE + 1, offset: (page - 1) * PAGE })),
  ]);
  const tasks = listed.slice(0, PAGE);
  const link = (p: number) => `/dashboard?${new URLSearchParams({ ...(state ? { state } : {}), page: String(p) })}`;
  return (
    <main className="wide">
      {user && !user.has_seen_welcome ? (
        <section className="card welcome" aria-labelledby="welcome-title">
          <h2 id="welcome-title">Welcome{user.first_name ? `, ${user.first_name}` : ""}!</h2>
          <p>
            A watch is a question you want answered once, when it happens. An AI agent searches the web for it, decides
            whether your condition is met, picks its own next check, and tells you once per new finding by email or
            webhook.
          </p>
          <DismissWelcome />
        </section>
      ) : null}
      <div className="title-row">
        <h1>Your watches</h1>
        <Link className="button" href="/dashboard/new">
          New watch
        </Link>
      </div>
      <nav className="filters" aria-label="Filter by state">
        {FILTERS.map((f) => (
          <Link
            key={f.label}
            href={f.state ? `/dashboard?state=${f.state}` : "/dashboard"}
            aria-current={state === f.state ? "page" : undefined}
          >
            {f.label}
          </Link>
        ))}
      </nav>
      {tasks.length ? (
        <table className="watches">
          <caption className="sr-only">Your watches</caption>
          <thead>
            <tr>
              <th scope="col">Watch</th>
              <th scope="col">State</th>
              <th scope="col">Last result</th>
              <th scope="col">Last checked</th>
              <th scope="col">Next check</th>
            </tr>
          </thead>
          <tbody>
            {tasks.map((t) => {
              const outcome = outcomeOf(t.last_execution);
              return (
                <tr key={t.id}>
                  <td>
                    <Link href={`/dashboard/w/${t.id}`}>{t.name}</Link>
                    <div className="muted small">{t.search_query}</div>
                  </td>
                  <td>
                    <span className={`badge state-${t.state}`}>{t.state}</span>
                  </td>
                  <td>
                    <span className={`badge outcome-${outcome.replace(" ", "-")}`}>{outcome}</span>
                  </td>
                  <td>
                    <Time iso={t.last_execution?.completed_at ?? t.last_execution?.started_at} />
                  </td>
                  <td>{t.state === "active" ? <Time iso={t.next_run} /> : "—"}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : page > 1 ? (
        <p className="notice">
          No watches on this page. <Link href={link(1)}>First page</Link>
        </p>
      ) : state ? (
        <p className="notice">No {state} watches.</p>
      ) : (
        <section className="card empty" aria-labelledby="empty-title">
          <h2 id="empty-title">Start your first watch</h2>
          <p>
            Describe something you are waiting for. The agent checks the web as often as it needs to and tells you when
            it happens. Start from an example:
          </p>
          <ul className="examples">
            {EXAMPLES.map((e) => (
              <li key={e.query}>
                <Link href={`/dashboard/new?${new URLSearchParams({ query: e.query, when: e.when })}`}>
                  {e.query}: <span className="muted">tell me when {e.when}</span>
                </Link>
              </li>
            ))}
          </ul>
        </section>
      )}
      {page > 1 || listed.length > PAGE ? (
        <nav className="pager" aria-label="Pages">
          {page > 1 ? <Link href={link(page - 1)}>← Newer</Link> : <span />}
          {listed.length > PAGE ? <Link href={link(page + 1)}>Older →</Link> : <span />}
        </nav>
      ) : null}
    </main>
  );
}
