import Link from "next/link";
import { z } from "zod";
import { serverCaller, viewer } from "@/server/api/server-caller";
import { NOAUTH_USER } from "@/server/auth";
import { listTasks } from "@/server/tasks/service";
import { Pill, VerdictPill } from "../ui/pill";
import { Time } from "../ui/time";
import { DismissWelcome, LiveRefresh } from "./ui/actions";
import { ListControls } from "./ui/list-controls";
import { SORTS, type Sort } from "./ui/sorts";

export const metadata = { title: "Your watches" };

const EXAMPLES = [
  { query: "iPhone 18 release date", when: "Apple officially announces the iPhone 18 release date" },
  { query: "PostgreSQL 19 beta", when: "a PostgreSQL 19 beta release is announced" },
  { query: "PyCon US 2027 tickets", when: "registration for PyCon US 2027 opens" },
];

/** The state chips: what a watch found, or whether it checks at all. */
const FILTERS = [
  { label: "All", state: undefined },
  { label: "Met", state: "met" },
  { label: "Watching", state: "watching" },
  { label: "Held", state: "held" },
  { label: "Paused", state: "paused" },
  { label: "Failing", state: "failing" },
  { label: "Completed", state: "completed" },
] as const;
type Filter = NonNullable<(typeof FILTERS)[number]["state"]>;
const FilterSchema = z.enum(FILTERS.flatMap((f) => (f.state ? [f.state] : [])) as [Filter, ...Filter[]]);
const SortSchema = z.enum(SORTS.map((s) => s.value) as [Sort, ...Sort[]]);

/**
 * Whom the welcome greets: the account's first name, else its username, else nobody. The built-in development
 * account (no sign-in) carries a placeholder name, which is no one's.
 */
const greeted = (user: { id: string; first_name: string; username: string | null }) =>
  (user.id === NOAUTH_USER.id ? "" : user.first_name.trim()) || user.username || "";

/** Watches per page. */
const PAGE = 50;

type Row = Awaited<ReturnType<typeof listTasks>>["tasks"][number];

/** Why a watch can't check, said under its name. */
const failure = (t: Row) => (t.verdict.state === "cant_check" ? t.verdict.reason : null);

/** "as of 3 hours ago"; a first check says it is under way, a watch never answered since when it fails. */
function AsOf({ t }: { t: Row }) {
  if (t.verdict.as_of)
    return (
      <>
        as of <Time iso={t.verdict.as_of} />
      </>
    );
  if (t.verdict.state === "cant_check" && t.verdict.since)
    return (
      <>
        failing since <Time iso={t.verdict.since} />
      </>
    );
  if (t.verdict.state === "first_check")
    return <>{t.verdict.running ? "First check running…" : "First check pending"}</>;
  return <span className="muted">not checked yet</span>;
}

function NextCheck({ t }: { t: Row }) {
  if (t.verdict.running) return <Pill tone="running">checking now</Pill>;
  if (t.state !== "active") return <span className="muted">—</span>;
  return <Time iso={t.next_run} />;
}

export default async function Watches({
  searchParams,
}: {
  searchParams: Promise<{ state?: string; page?: string; q?: string; sort?: string }>;
}) {
  const params = await searchParams;
  const state = FilterSchema.optional().catch(undefined).parse(params.state);
  const sort = SortSchema.catch("attention").parse(params.sort ?? "attention");
  const q = (params.q ?? "").trim().slice(0, 200);
  // A page number from the address bar: 1 when it is not one, and never past what an offset can say.
  const page = Math.min(Math.max(1, Math.floor(Number(params.page)) || 1), 100_000);
  await serverCaller(); // signed out: to the sign-in page
  const user = (await viewer())!;
  // What GET /api/v1/tasks?sort&q&state&limit&offset answers, with its X-Total-Count.
  const { tasks, total } = await listTasks(user, {
    sort,
    q: q || undefined,
    state,
    limit: PAGE,
    offset: (page - 1) * PAGE,
  });
  const pages = Math.max(1, Math.ceil(total / PAGE));
  const query = (over: Record<string, string | undefined>) => {
    const all = { q: q || undefined, sort: sort === "attention" ? undefined : sort, state, ...over };
    const defined = Object.entries(all).filter((e): e is [string, string] => !!e[1]);
    return defined.length ? `/dashboard?${new URLSearchParams(defined)}` : "/dashboard";
  };
  const link = (p: number) => query({ page: String(p) });
  const filtered = !!(state || q);
  return (
    <main className="wide">
      {!user.has_seen_welcome ? (
        <section className="card welcome" aria-labelledby="welcome-title">
          <h2 id="welcome-title">Welcome to Watch{greeted(user) ? `, ${greeted(user)}` : ""}!</h2>
          <p>
            A watch is a question you want answered once, when it happens. An AI agent searches the web for it, decides
            whether your condition is met, picks its own next check, and tells you once per new finding: by email, in
            team chat (Slack, Discord, Teams, Telegram, Mattermost, Google Chat, Matrix), on your phone (ntfy, Pushover,
            Gotify), through an Apprise API or by webhook.
          </p>
          <DismissWelcome />
        </section>
      ) : null}
      <div className="page-header section">
        <div>
          <h1>Your watches</h1>
        </div>
      </div>
      {total || filtered ? (
        <div className="list-toolbar">
          <ListControls q={q} sort={sort} state={state} />
          <nav className="tabs chips" aria-label="Filter by state">
            {FILTERS.map((f) => (
              <Link
                key={f.label}
                href={query({ state: f.state })}
                aria-current={state === f.state ? "page" : undefined}
              >
                {f.label}
              </Link>
            ))}
          </nav>
        </div>
      ) : null}
      {/* The list refreshes itself while any watch is being checked. */}
      <LiveRefresh active={tasks.some((t) => t.verdict.running)} quiet />
      {tasks.length ? (
        <div className="table-wrap cards">
          <table className="watches">
            <caption className="sr-only">
              Your watches, {SORTS.find((s) => s.value === sort)!.label.toLowerCase()} first
            </caption>
            <thead>
              <tr>
                <th scope="col">Watch</th>
                <th scope="col">Verdict</th>
                <th scope="col">Checked</th>
                <th scope="col">Next check</th>
              </tr>
            </thead>
            <tbody>
              {tasks.map((t) => (
                <tr key={t.id} data-unseen={t.unseen || undefined} data-state={t.verdict.state}>
                  <td className="primary-cell">
                    <div className="watch-name">
                      {t.unseen ? <span className="unseen-dot" aria-hidden /> : null}
                      <Link href={`/dashboard/w/${t.id}`}>
                        {t.unseen ? <span className="sr-only">New: </span> : null}
                        {t.name}
                      </Link>
                      {t.delivery_failed ? (
                        <Pill tone="danger" testId="delivery-failed">
                          delivery failed
                        </Pill>
                      ) : null}
                    </div>
                    {failure(t) ? <div className="sub failure-line">{failure(t)}</div> : null}
                    {t.latest_answer ? (
                      <div className="sub answer-line" data-testid="latest-answer">
                        {t.latest_answer}
                      </div>
                    ) : !failure(t) && t.search_query !== t.name ? (
                      <div className="sub">{t.search_query}</div>
                    ) : null}
                  </td>
                  <td data-label="Verdict">
                    <VerdictPill state={t.verdict.state} />
                  </td>
                  <td data-label="Checked" className="nowrap">
                    <AsOf t={t} />
                  </td>
                  <td data-label="Next check" className="nowrap">
                    <NextCheck t={t} />
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
      ) : filtered ? (
        <p className="notice">
          {q
            ? `No ${state ? `${FILTERS.find((f) => f.state === state)!.label.toLowerCase()} ` : ""}watches match “${q}”.`
            : `No ${FILTERS.find((f) => f.state === state)!.label.toLowerCase()} watches.`}{" "}
          <Link href="/dashboard">Show all watches</Link>
        </p>
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
          {page > 1 ? <Link href={link(page - 1)}>← Previous</Link> : <span />}
          <span className="muted">
            Page {page} of {pages} · {total.toLocaleString("en")} watches
          </span>
          {page < pages ? <Link href={link(page + 1)}>Next →</Link> : <span />}
        </nav>
      ) : null}
    </main>
  );
}
