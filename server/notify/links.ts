/**
 * Links in notifications: where the watch is seen, and the one-click pause link. A pause link names the watch and an
 * expiry and carries an HMAC of both under the service's own link key (not any user's secret); it opens a page whose
 * button pauses (mail scanners follow links, so nothing acts on GET).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "../env";
import { serviceKey } from "../secrets";

export const PAUSE_LINK_TTL_MS = 7 * 24 * 3_600_000;

/** The owner's dashboard page of a private watch; the public page of a public one. */
export const watchUrl = (task: { id: string; is_public: boolean }) =>
  task.is_public ? `${env.APP_URL}/w/${task.id}` : `${env.APP_URL}/dashboard/w/${task.id}`;

const mac = async (taskId: string, expires: number) =>
  createHmac("sha256", await serviceKey("email-links")).update(`pause:${taskId}:${expires}`).digest("base64url");

export async function pauseToken(taskId: string, now = Date.now()) {
  const expires = Math.floor((now + PAUSE_LINK_TTL_MS) / 1000);
  return `${expires}.${await mac(taskId, expires)}`;
}

export async function verifyPauseToken(taskId: string, token: string, now = Date.now()) {
  const [expiresText, given] = token.split(".");
  const expires = Number(expiresText);
  if (!given || !Number.isInteger(expires) || expires * 1000 < now) return false;
  const expected = Buffer.from(await mac(taskId, expires));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export const pauseUrl = async (taskId: string) => `${env.APP_URL}/email/pause?task=${taskId}&token=${await pauseToken(taskId)}`;

export const verifyUrl = (token: string) => `${env.APP_URL}/email/verify?token=${token}`;
