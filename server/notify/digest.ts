/**
 * The daily digest: at 08:00 in the user's time zone, one email with every finding and retraction since
 * the last digest — of their own watches and of the public watches they follow — instead of an email each.
 */
import { DailyDigest, type DigestGroup } from "../../emails/digest";
import { db } from "../db";
import { env } from "../env";
import { sql } from "../db/sql";
import { nextDigestAt } from "../users/settings";
import { renderMarkdown } from "../render/markdown";
import { sendRecorded } from "./email";
import { watchUrl } from "./links";

const DAY_MS = 24 * 3_600_000;

type Row = {
  id: string;
  task_id: string;
  name: string;
  is_public: boolean;
  completed_at: Date;
  title: string | null;
  answer: string | null;
  retraction: boolean;
};

type Finding = {
  taskId: string;
  watchName: string;
  watchUrl: string;
  title: string;
  answer: string;
  at: Date;
  retraction: boolean;
};

/**
 * The digest's sections: one per watch, in the order of each watch's first finding of the day, its findings in
 * time order, each stamped in the reader's time zone.
 */
export function groupByWatch(findings: Finding[], timezone: string): DigestGroup[] {
  const stamp = new Intl.DateTimeFormat("en-GB", {
    timeZone: timezone,
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  });
  const groups = new Map<string, DigestGroup>();
  for (const f of [...findings].sort((a, b) => a.at.getTime() - b.at.getTime())) {
    let group = groups.get(f.taskId);
    if (!group) groups.set(f.taskId, (group = { watchName: f.watchName, watchUrl: f.watchUrl, items: [] }));
    group.items.push({
      title: f.title,
      answerHtml: renderMarkdown(f.answer),
      at: stamp.format(f.at),
      retraction: f.retraction,
    });
  }
  return [...groups.values()];
}

async function findingsBetween(userId: string, since: Date, until: Date): Promise<Finding[]> {
  const rows = await sql<Row>(
    `SELECT e.id, t.id AS task_id, t.name, t.is_public, e.completed_at, e.notification->>'title' AS title, e.result->>'answer' AS answer,
            e.notices @> '[{"event":"task.condition_retracted"}]' AS retraction
       FROM executions e JOIN tasks t ON t.id = e.task_id
      WHERE (t.user_id = $1 OR t.id IN (SELECT task_id FROM follows WHERE user_id = $1 AND confirmed_at IS NOT NULL))
        AND e.completed_at > $2 AND e.completed_at <= $3
        AND (e.notices @> '[{"event":"task.condition_met"}]' OR e.notices @> '[{"event":"task.condition_retracted"}]')
      ORDER BY e.completed_at`,
    [userId, since, until],
  );
  return rows.map((r) => ({
    taskId: r.task_id,
    watchName: r.name,
    watchUrl: watchUrl({ id: r.task_id, is_public: r.is_public }),
    title: r.title ?? (r.retraction ? "an earlier finding no longer holds" : `Condition met: ${r.name}`),
    answer: r.answer ?? "",
    at: r.completed_at,
    retraction: r.retraction,
  }));
}

/**
 * The digest due at `dueAt`: sent once (the user's next_digest_at is moved on in the same statement that claims it, so
 * a retried step or another replica finds nothing to do), nothing when there is nothing new. Answers when the next one
 * is due (null when the digest was turned off or re-armed meanwhile).
 */
export async function sendDigest(userId: string, dueAt: string): Promise<{ next: string | null; findings: number }> {
  const due = new Date(dueAt);
  const user = await db.user.findUnique({ where: { id: userId } });
  if (!user || user.email_digest !== "daily" || !user.is_active) return { next: null, findings: 0 };
  const next = nextDigestAt(user, new Date(due.getTime() + 60_000));
  const { count } = await db.user.updateMany({
    where: { id: userId, next_digest_at: due },
    data: { last_digest_at: due, next_digest_at: next },
  });
  if (!count) return { next: null, findings: 0 };
  const findings = await findingsBetween(userId, user.last_digest_at ?? new Date(due.getTime() - DAY_MS), due);
  if (findings.length)
    await sendRecorded(
      { user_id: userId, task_id: null, execution_id: null, event: "digest.daily", recipient: user.email },
      async () => ({
        subject: `Your Watch digest: ${findings.length} finding${findings.length === 1 ? "" : "s"}`,
        react: DailyDigest({
          count: findings.length,
          groups: groupByWatch(findings, user.timezone),
          settingsUrl: `${env.APP_URL}/dashboard/settings`,
        }),
      }),
    );
  return { next: next.toISOString(), findings: findings.length };
}
