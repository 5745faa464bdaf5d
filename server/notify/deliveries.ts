/**
 * One delivery attempt per (execution, channel, attempt), at most once, also across crashes: the attempt's send
 * record is claimed first (its unique key), then the message is sent, then the record says how it went. A
 * re-run of the same attempt finds the claim and does not send again.
 */
import { db, Prisma, type NotificationType, type SendStatus } from "../db";

export type DeliveryOutcome = { status: SendStatus | "none"; retry: boolean };
export const INTERRUPTED = "delivery interrupted";

type Claim = { id: string } | { existing: { status: SendStatus; error_message: string | null } };

export async function claimAttempt(rec: {
  user_id: string;
  task_id: string;
  execution_id: string;
  notification_type: NotificationType;
  recipient: string;
  attempt: number;
}): Promise<Claim> {
  try {
    const row = await db.notificationSend.create({ data: { ...rec, status: "failed", error_message: INTERRUPTED } });
    return { id: row.id };
  } catch (e) {
    if (!(e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002")) throw e;
    const existing = await db.notificationSend.findUniqueOrThrow({
      where: {
        execution_id_notification_type_attempt: {
          execution_id: rec.execution_id,
          notification_type: rec.notification_type,
          attempt: rec.attempt,
        },
      },
      select: { status: true, error_message: true },
    });
    return { existing };
  }
}

export async function settleAttempt(id: string, status: SendStatus, error: string | null) {
  await db.notificationSend.update({ where: { id }, data: { status, error_message: error } });
}

/** What a delivery reads: the execution's notification, its watch, owner and channel config. */
export async function loadDelivery(executionId: string, type: NotificationType) {
  const execution = await db.execution.findUnique({
    where: { id: executionId },
    include: { task: { include: { user: true, notifications: { where: { type } } } } },
  });
  if (!execution || !execution.notification) return null;
  const config = execution.task.notifications[0];
  return config ? { execution, task: execution.task, user: execution.task.user, config } : null;
}
