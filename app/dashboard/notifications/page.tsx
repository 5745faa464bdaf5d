import Link from "next/link";
import { z } from "zod";
import { serverCaller } from "@/server/api/server-caller";
import { SEND_EVENTS } from "@/server/notify/events";
import { NotificationTypeSchema } from "@/server/tasks/schemas";
import { Redeliver } from "../ui/actions";
import { Time } from "../ui/time";
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
  const [{ sends, total }, tasks, secret] = await Promise.all([
    caller.notifications.sends({ notification_type: type, task_id, event, limit: PAGE, offset: (page - 1) * PAGE }),
    caller.tasks.list({}),
    caller.users.webhookSecret(),
  ]);
  const names = new Map(tasks.map((t) => [t.id, t.name]));
  const pages = Math.max(1, Math.ceil(total / PAGE));
  const filters = { ...(type ? { type } : {}), ...(task_id ? { task_id } : {}), ...(event ? { event } : {}) };
  const link = (p: number) => `/dashboard/notifications?${new URLSearchParams({ ...filters, page: String(p) })}`;
  return (
    <main className="wide">
      <h1>Notifications</h1>
      <section className="card" aria-labelledby="secret-title">
        <h2 id="secret-title">Webhook signing secret</h2>
        <p className="muted">
          Every webhook is signed with the <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> scheme.
          Verify the <code>webhook-signature</code> header with this secret before trusting a delivery.
        </p>
        <WebhookSecret previousExpiresAt={secret.previous_expires_at} />
      </section>
      <h2>Delivery history</h2>
      <form className="inline filters" method="get" aria-label="Filter deliveries">
        <label>
          Channel
          <select name="type" defaultValue={type ?? ""}>
            <option value="">All channels</option>
            <option value="email">Email</option>
            <option value="webhook">Webhook</option>
          </select>
        </label>
        <label>
          Event
          <select name="event" defaultValue={event ?? ""}>
            <option value="">All events</option>
            {SEND_EVENTS.map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </select>
        </label>
        <label>
          Watch
          <select name="task_id" defaultValue={task_id ?? ""}>
            <option value="">All watches</option>
            {tasks.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Filter</button>
      </form>
      {sends.length ? (
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
                <td>
                  <Time iso={s.created_at} />
                </td>
                <td>
                  {s.task_id === null ? (
                    <span className="muted">all watches</span>
                  ) : names.has(s.task_id) ? (
                    <Link href={`/dashboard/w/${s.task_id}`}>{names.get(s.task_id)}</Link>
                  ) : (
                    <span className="muted">deleted watch</span>
                  )}
                </td>
                <td className="small">
                  {s.event}
                  {s.attempt > 1 ? ` (attempt ${s.attempt})` : ""}
                </td>
                <td>{s.notification_type}</td>
                <td className="small">{s.recipient}</td>
                <td>
                  <span className={`badge send-${s.status}`}>{s.status}</span>
                  {s.error_message ? <div className="small muted">{s.error_message}</div> : null}
                  {s.notification_type === "webhook" && s.execution_id ? <Redeliver id={s.id} /> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="notice">
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
    </main>
  );
}
