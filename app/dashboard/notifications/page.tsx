import Link from "next/link";
import { z } from "zod";
import { serverCaller, viewer } from "@/server/api/server-caller";
import { db } from "@/server/db";
import { EVENT_LABELS, SEND_EVENTS, WATCH_EVENTS } from "@/server/notify/events";
import { NotificationTypeSchema } from "@/server/tasks/schemas";
import { CHANNELS, channelOf } from "@/channels";
import { DeliveryMark } from "../../ui/pill";
import { Time } from "../../ui/time";
import { Redeliver } from "../ui/actions";

export const metadata = { title: "Notifications" };

const PAGE = 25;
const Filters = z.object({
  type: NotificationTypeSchema.optional().catch(undefined),
  task_id: z.guid().optional().catch(undefined),
  event: z.enum(SEND_EVENTS).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
});

type Send = Awaited<ReturnType<Awaited<ReturnType<typeof serverCaller>>["notifications"]["sends"]>>["sends"][number];

/** A run's notice can be sent again, on any channel (a test send or a confirmation link cannot). */
const canRedeliver = (s: Send) => s.execution_id !== null && (WATCH_EVENTS as readonly string[]).includes(s.event);

/** Why a delivery did not arrive, as the send record classes it. */
const FAILURE_WORDS = {
  refused: "Refused by the destination",
  unreachable: "Destination unreachable",
  internal: "Watch's own error",
} as const;

const eventLabel = (event: string) => EVENT_LABELS[event as keyof typeof EVENT_LABELS] ?? event;
const ordinal = (n: number) =>
  `${n}${n % 10 === 2 && n % 100 !== 12 ? "nd" : n % 10 === 3 && n % 100 !== 13 ? "rd" : "th"}`;

export default async function Notifications({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const { type, task_id, event, page } = Filters.parse(await searchParams);
  const caller = await serverCaller();
  const user = (await viewer())!;
  const [{ sends, total }, tasks] = await Promise.all([
    caller.notifications.sends({ notification_type: type, task_id, event, limit: PAGE, offset: (page - 1) * PAGE }),
    // The filter names every watch: their names only (a whole view of each, up to MAX_WATCHES_PER_ACCOUNT, is far more).
    db.task.findMany({
      where: { user_id: user.id },
      select: { id: true, name: true },
      orderBy: { created_at: "desc" },
    }),
  ]);
  const names = new Map(tasks.map((t) => [t.id, t.name]));
  const pages = Math.max(1, Math.ceil(total / PAGE));
  const filters = { ...(type ? { type } : {}), ...(task_id ? { task_id } : {}), ...(event ? { event } : {}) };
  const link = (p: number) => `/dashboard/notifications?${new URLSearchParams({ ...filters, page: String(p) })}`;
  return (
    <main className="wide">
      <div className="page-header">
        <div>
          <h1>Notifications</h1>
          <p className="lead">Every message Watch sent for your watches, where it went, and whether it arrived.</p>
        </div>
      </div>
      <form className="inline-form" method="get" aria-label="Filter notifications">
        <FilterSelect
          name="type"
          label="Channel"
          all="All channels"
          value={type}
          options={CHANNELS.map((c) => [c.type, c.label])}
        />
        <FilterSelect
          name="event"
          label="Event"
          all="All events"
          value={event}
          options={SEND_EVENTS.map((e) => [e, EVENT_LABELS[e]])}
        />
        <FilterSelect
          name="task_id"
          label="Watch"
          all="All watches"
          value={task_id}
          options={tasks.map((t) => [t.id, t.name])}
        />
        <button type="submit" className="secondary">
          Filter
        </button>
      </form>
      {sends.length ? (
        <div className="table-wrap cards section">
          <table className="sends">
            <caption className="sr-only">Notifications, newest first ({total} in total)</caption>
            <thead>
              <tr>
                <th scope="col">Delivery</th>
                <th scope="col">Event</th>
                <th scope="col">Watch</th>
                <th scope="col">Sent to</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {sends.map((s) => (
                <tr key={s.id} data-status={s.status}>
                  <td data-label="Delivery" className="wide-cell delivery-cell">
                    <div className="row">
                      <DeliveryMark status={s.status} />
                      {canRedeliver(s) ? <Redeliver id={s.id} /> : null}
                    </div>
                    {s.error_message ? (
                      <div className="sub">
                        {s.failure ? `${FAILURE_WORDS[s.failure]}: ` : ""}
                        {s.error_message}
                      </div>
                    ) : null}
                    {s.next_attempt_at ? (
                      <div className="sub" data-testid="next-attempt">
                        Next try <Time iso={s.next_attempt_at} format="clock" /> (<Time iso={s.next_attempt_at} />)
                      </div>
                    ) : null}
                  </td>
                  <td data-label="Event">
                    {eventLabel(s.event)}
                    {s.attempt > 1 ? <div className="sub">{ordinal(s.attempt)} attempt</div> : null}
                  </td>
                  <td data-label="Watch">
                    {s.task_id === null ? (
                      <span className="muted">all watches</span>
                    ) : names.has(s.task_id) ? (
                      <Link href={`/dashboard/w/${s.task_id}`}>{names.get(s.task_id)}</Link>
                    ) : (
                      <span className="muted">a deleted watch</span>
                    )}
                  </td>
                  <td data-label="Sent to" className="wide-cell">
                    {channelOf(s.notification_type)?.label ?? s.notification_type}
                    <div className="sub">{s.recipient}</div>
                  </td>
                  <td data-label="When" className="nowrap">
                    <Time iso={s.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <p className="notice section">
          Nothing
          {type || task_id || event
            ? " matches these filters"
            : " sent yet: messages appear here when a watch finds something new"}
          .
        </p>
      )}
      {pages > 1 ? (
        <nav className="pager" aria-label="Pages">
          {page > 1 ? <Link href={link(page - 1)}>← Newer</Link> : <span />}
          <span className="muted">
            Page {page} of {pages}
          </span>
          {page < pages ? <Link href={link(page + 1)}>Older →</Link> : <span />}
        </nav>
      ) : null}
      <p className="muted small section">
        Webhooks are signed (Standard Webhooks): the signing secret is in{" "}
        <Link href="/dashboard/settings#developers">Settings → Developers</Link>.
      </p>
    </main>
  );
}

/** One of the list's filters: a labelled select whose first option shows everything. */
function FilterSelect(p: {
  name: string;
  label: string;
  all: string;
  value: string | undefined;
  options: [value: string, label: string][];
}) {
  const id = `filter-${p.name}`;
  return (
    <div className="field fit">
      <label htmlFor={id}>{p.label}</label>
      <select id={id} name={p.name} defaultValue={p.value ?? ""}>
        <option value="">{p.all}</option>
        {p.options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </div>
  );
}
