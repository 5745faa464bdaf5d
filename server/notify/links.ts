/** Links in notifications: the watch, and a one-click pause link signed with the owner's webhook secret. */
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "../env";

export const watchUrl = (taskId: string) => `${env.APP_URL}/tasks/${taskId}`;

export function pauseToken(taskId: string, secret: string) {
  return createHmac("sha256", secret).update(`pause:${taskId}`).digest("base64url");
}

export function verifyPauseToken(taskId: string, secret: string, token: string) {
  const expected = Buffer.from(pauseToken(taskId, secret));
  const given = Buffer.from(token);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export const pauseUrl = (taskId: string, secret: string) =>
  `${env.APP_URL}/api/v1/email/pause?task=${taskId}&token=${pauseToken(taskId, secret)}`;
