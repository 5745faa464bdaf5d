/**
 * Links in notifications: where the watch is seen, and links that act (pause a watch, confirm or end a follow). An
 * acting link carries a token naming its subject and expiry under an HMAC of the service's own link key (not any
 * user's secret), and opens a page whose button acts: mail scanners follow links, so nothing acts on GET.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { env } from "../env";
import { serviceKey } from "../secrets";

export const PAUSE_LINK_TTL_MS = 7 * 24 * 3_600_000;
export const FOLLOW_CONFIRM_TTL_MS = 7 * 24 * 3_600_000;

type Purpose = "pause" | "follow-confirm" | "unsubscribe";

/** The owner's dashboard page of a private watch; the public page of a public one. */
export const watchUrl = (task: { id: string; is_public: boolean }) =>
  task.is_public ? `${env.APP_URL}/w/${task.id}` : `${env.APP_URL}/dashboard/w/${task.id}`;

const mac = async (purpose: Purpose, subject: string, expires: number) =>
  createHmac("sha256", await serviceKey("email-links"))
    .update(`${purpose}:${subject}:${expires}`)
    .digest("base64url");

/** `<subject>.<expiry, unix seconds; 0 = never>.<mac>` */
export async function signToken(purpose: Purpose, subject: string, ttlMs: number | null, now = Date.now()) {
  const expires = ttlMs === null ? 0 : Math.floor((now + ttlMs) / 1000);
  return `${subject}.${expires}.${await mac(purpose, subject, expires)}`;
}

/** The token's subject when it is genuine and current, else null. */
export async function readToken(purpose: Purpose, token: string, now = Date.now()): Promise<string | null> {
  const [subject, expiresText, given] = token.split(".");
  const expires = Number(expiresText);
  if (!subject || !given || !Number.isInteger(expires) || (expires !== 0 && expires * 1000 < now)) return null;
  const expected = Buffer.from(await mac(purpose, subject, expires));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual) ? subject : null;
}

export const pauseUrl = async (taskId: string) =>
  `${env.APP_URL}/email/pause?task=${taskId}&token=${await signToken("pause", taskId, PAUSE_LINK_TTL_MS)}`;

export const verifyUrl = (token: string) => `${env.APP_URL}/email/verify?token=${token}`;

export const followConfirmUrl = async (followId: string) =>
  `${env.APP_URL}/follow/confirm?token=${await signToken("follow-confirm", followId, FOLLOW_CONFIRM_TTL_MS)}`;

/** The page with the unsubscribe button, and the RFC 8058 one-click endpoint for List-Unsubscribe. */
export async function unsubscribeUrls(followId: string) {
  const token = await signToken("unsubscribe", followId, null);
  return {
    page: `${env.APP_URL}/unsubscribe?token=${token}`,
    oneClick: `${env.APP_URL}/unsubscribe/one-click?token=${token}`,
  };
}
