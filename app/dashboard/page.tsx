import Link from "next/link";
import { serverCaller, viewer } from "@/server/api/server-caller";
import { TaskStateSchema } from "@/server/tasks/schemas";
import { listTasks } from "@/server/tasks/service";
import { NOAUTH_USER } from "@/server/auth";
import { OutcomePill, StatePill } from "../ui/pill";
import { Time } from "../ui/time";
import { DismissWelcome, LiveRefresh } from "./ui/actions";
import { isOpen, outcomeOf } from "@/server/tasks/outcome";

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

/**
 * Whom the welcome greets: the account's first name, else its username, else nobody. The built-in development
 * account (no sign-in) carries a placeholder name, which is no one's.
 */
const greeted = (user: { id: string; first_name: string; username: string | null }) =>
  (user.id === NOAUTH_USER.id ? "" : user.first_name.trim()) || user.username || "";

/** Watches per page. */
const PAGE = 50;

export default async function Watches({ searchParams }: { searchParams: Promise<{ state?: string; page?: string }> }) {
  const params = await searchParams;
  const state = TaskStateSchema.optional().catch(undefined).parse(params.state);
  // A page number from the address bar: 1 when it is not one, and never past what an offset can say.
  const page = Math.min(Math.max(1, Math.floor(Number(params.page)) || 1), 100_000);
  await serverCaller(); // signed out: to the sign-in page
  const user = (await viewer())!;
  // What GET /api/v1/tasks?limit&offset answers, with its X-Total-Count.
  const { tasks, total } = await listTasks(user, { state, limit: PAGE, offset: (page - 1) * PAGE });
  const pages = Math.max(1, Math.ceil(total / PAGE));
  const link = (p: number) => `/dashboard?${new URLSearchParams({ ...(state ? { state } : {}), page: String(p) })}`;
  return (
    <main className="wide">
      {!user.has_seen_welcome ? (
        <section className="card welcome" aria-labelledby="welcome-title">
          <h2 id="welcome-title">Welcome to Watch{greeted(user) ? `, ${greeted(user)}` : ""}!</h2>
          <p>
            A watch is a question you want answered once, when it happens. An AI agent searches the web for it, decides
            whether your condition is met, picks its own next check, and tells you once per new finding: by email, in
            team chat (Slack, Discord, Teams, Telegram), on your phone (ntfy) or by webhook.
          </p>
          <DismissWelcome />
        </section>
      ) : null}
      <div className="page-header section">
        <div>
          <h1>Your watches</h1>
        </div>
      </div>
      <nav className="tabs" aria-label="Filter by state">
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
      {/* The list refreshes itself while any watch is being checked. */}
      <LiveRefresh active={tasks.some((t) => isOpen(t.last_execution))} quiet />
      {tasks.length ? (
        <div className="table-wrap cards">
          <table className="watches">
            <caption className="sr-only">Your watches</caption>
            <thead>
              <tr>
                <th scope="col">Watch</th>
                <th scope="col">Last result</th>
                <th scope="col">State</th>
                <th scope="col">Last checked</th>
                <th scope="col">Next check</th>
              </tr>
            </thead>
            <tbody>
              {tasks.map((t) => (
                <tr key={t.id}>
                  <td className="primary-cell">
                    <Link href={`/dashboard/w/${t.id}`}>{t.name}</Link>
                    {t.search_query !== t.name ? <div className="sub">{t.search_query}</div> : null}
                  </td>
                  <td data-label="Last result">
                    <OutcomePill outcome={outcomeOf(t.last_execution)} />
                  </td>
                  <td data-label="State">
                    <StatePill state={t.state} />
                  </td>
                  <td data-label="Last checked" className="nowrap">
                    <Time iso={t.last_execution?.completed_at ?? t.last_execution?.started_at} />
                  </td>
                  <td data-label="Next check" className="nowrap">
                    {t.state === "active" ? <Time iso={t.next_run} /> : "—"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : page > 1 ? (
        <p className="notice">
          No watches on this page. <Link href={link(1)}>First page</Link>
        </p>
      ) : state ? (
        <p className="notice">No {state} watches.</p>
      ) : (
        <section className="card empty" aria-labelledby="empty-title">
          <h2 id="empty-title">Start your first watch</h2>
          <p className="muted">
            Describe something you are waiting for. The agent checks the web as often as it needs to and tells you when
            it happens. Start from an example:
          </p>
          <ul className="examples">
            {EXAMPLES.map((e) => (
              <li key={e.query}>
                <Link href={`/dashboard/new?${new URLSearchParams({ query: e.query, when: e.when })}`}>{e.query}</Link>
                <span className="muted">: tell me when {e.when}</span>
              </li>
            ))}
          </ul>
          <Link className="button" href="/dashboard/new">
            New watch
          </Link>
        </section>
      )}
      {pages > 1 && page <= pages ? (
        <nav className="pager" aria-label="Pages">
          {page > 1 ? <Link href={link(page - 1)}>← Newer</Link> : <span />}
          <span className="muted">
            Page {page} of {pages} · {total.toLocaleString("en")} watches
          </span>
          {page < pages ? <Link href={link(page + 1)}>Older →</Link> : <span />}
        </nav>
      ) : null}
    </main>
  );
}
