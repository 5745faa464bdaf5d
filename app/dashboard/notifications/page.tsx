import Link from "next/link";
import { z } from "zod";
import { serverCaller, viewer } from "@/server/api/server-caller";
import { db } from "@/server/db";
import { SEND_EVENTS } from "@/server/notify/events";
import { NotificationTypeSchema } from "@/server/tasks/schemas";
import { CHANNELS } from "@/channels";
import { SendPill } from "../../ui/pill";
import { Time } from "../../ui/time";
import { Redeliver } from "../ui/actions";
import { WebhookSecret } from "../ui/settings";

export const metadata = { title: "Notifications" };

const PAGE = 25;
const Filters = z.object({
  type: NotificationTypeSchema.optional().catch(undefined),
  task_id: z.guid().optional().catch(undefined),
  event: z.enum(SEND_EVENTS).optional().catch(undefined),
  page: z.coerce.number().int().min(1).max(10_000).catch(1),
});

export default async function Notifications({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | undefined>>;
}) {
  const { type, task_id, event, page } = Filters.parse(await searchParams);
  const caller = await serverCaller();
  const user = (await viewer())!;
  const [{ sends, total }, tasks, secret] = await Promise.all([
    caller.notifications.sends({ notification_type: type, task_id, event, limit: PAGE, offset: (page - 1) * PAGE }),
    // The filter names every watch: their names only (a whole view of each, up to MAX_WATCHES_PER_ACCOUNT, is far more).
    db.task.findMany({
      where: { user_id: user.id },
      select: { id: true, name: true },
      orderBy: { created_at: "desc" },
    }),
    caller.users.webhookSecret(),
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
          <p className="lead">Every email, webhook and chat message sent for your watches, and how it went.</p>
        </div>
      </div>
      <section className="card" aria-labelledby="secret-title">
        <h2 id="secret-title">Webhook signing secret</h2>
        <p className="muted small">
          Every webhook is signed with the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> scheme.
          Verify the <code>webhook-signature</code> header with this secret before trusting a delivery.
        </p>
        <WebhookSecret previousExpiresAt={secret.previous_expires_at} />
      </section>
      <section className="section" aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Delivery history</h2>
        <form className="inline-form" method="get" aria-label="Filter deliveries">
          <div className="field fit">
            <label htmlFor="filter-type">Channel</label>
            <select id="filter-type" name="type" defaultValue={type ?? ""}>
              <option value="">All channels</option>
              {CHANNELS.map((s) => (
                <option key={s.type} value={s.type}>
                  {s.label}
                </option>
              ))}
            </select>
          </div>
          <div className="field fit">
            <label htmlFor="filter-event">Event</label>
            <select id="filter-event" name="event" defaultValue={event ?? ""}>
              <option value="">All events</option>
              {SEND_EVENTS.map((e) => (
                <option key={e} value={e}>
                  {e}
                </option>
              ))}
            </select>
          </div>
          <div className="field fit">
            <label htmlFor="filter-task">Watch</label>
            <select id="filter-task" name="task_id" defaultValue={task_id ?? ""}>
              <option value="">All watches</option>
              {tasks.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" className="secondary">
            Filter
          </button>
        </form>
        {sends.length ? (
          <div className="table-wrap cards section">
            <table>
              <caption className="sr-only">Deliveries, newest first ({total} in total)</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Watch</th>
                  <th scope="col">Event</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Recipient</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                {sends.map((s) => (
                  <tr key={s.id}>
                    <td data-label="When" className="nowrap">
                      <Time iso={s.created_at} />
                    </td>
                    <td data-label="Watch">
                      {s.task_id === null ? (
                        <span className="muted">all watches</span>
                      ) : names.has(s.task_id) ? (
                        <Link href={`/dashboard/w/${s.task_id}`}>{names.get(s.task_id)}</Link>
                      ) : (
                        <span className="muted">deleted watch</span>
                      )}
                    </td>
                    <td data-label="Event">
                      {s.event}
                      {s.attempt > 1 ? ` (attempt ${s.attempt})` : ""}
                    </td>
                    <td data-label="Channel">{s.notification_type}</td>
                    <td data-label="Recipient" className="wide-cell">
                      {s.recipient}
                    </td>
                    <td data-label="Status" className="wide-cell">
                      <div className="row">
                        <SendPill status={s.status} />
                        {s.execution_id ? <Redeliver id={s.id} /> : null}
                      </div>
                      {s.error_message ? <div className="sub">{s.error_message}</div> : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <p className="notice section">
            No deliveries
            {type || task_id || event ? " match these filters" : " yet: they appear when a watch finds something new"}.
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
      </section>
    </main>
  );
}
