/** The notification send history (SPEC §4.2): one record per delivery attempt. */
import { db, type NotificationType, type User } from "../db";

export async function listSends(
  user: User,
  q: { notification_type?: NotificationType; task_id?: string; limit: number; offset: number },
) {
  const where = {
    user_id: user.id,
    ...(q.notification_type ? { notification_type: q.notification_type } : {}),
    ...(q.task_id ? { task_id: q.task_id } : {}),
  };
  const [rows, total] = await Promise.all([
    db.notificationSend.findMany({ where, orderBy: { created_at: "desc" }, take: q.limit, skip: q.offset }),
    db.notificationSend.count({ where }),
  ]);
  return {
    sends: rows.map((s) => ({
      id: s.id,
      user_id: s.user_id,
      task_id: s.task_id,
      execution_id: s.execution_id,
      event: s.event,
      attempt: s.attempt,
      recipient: s.recipient,
      notification_type: s.notification_type,
      status: s.status,
      error_message: s.error_message,
      created_at: s.created_at.toISOString(),
    })),
    total,
  };
}
