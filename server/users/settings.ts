/**
 * A user's email settings: their time zone, quiet hours (email held until they end; webhooks never
 * wait) and the daily digest (one email at 08:00 local with every finding since the last one, instead of one each).
 */
import { z } from "zod";
import { now } from "../clock";
import { db, type User } from "../db";
import { scheduler } from "../scheduler";
import { text } from "../../lib/text";
import { isTimeZone, nextLocalTime, quietUntil } from "./quiet-hours";

export const DIGEST_LOCAL_MINUTES = 8 * 60;

const HourMinute = z
  .string()
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be HH:MM (00:00 to 23:59)")
  .max(5);

export const SettingsSchema = z
  .object({
    timezone: z.string().meta({ description: "IANA time zone, e.g. Europe/Berlin" }),
    quiet_hours: z
      .object({ start: z.string(), end: z.string() })
      .nullable()
      .meta({ description: "Local HH:MM; may span midnight" }),
    email_digest: z.enum(["off", "daily"]),
  })
  .meta({ id: "Settings" });

export const SettingsInput = z
  .object({
    timezone: text().max(64).refine(isTimeZone, "must be an IANA time zone, e.g. Europe/Berlin").optional(),
    quiet_hours: z
      .object({ start: HourMinute, end: HourMinute })
      .strict()
      .refine((q) => q.start !== q.end, { message: "start and end must differ", path: ["end"] })
      .nullable()
      .optional(),
    email_digest: z.enum(["off", "daily"]).optional(),
  })
  .strict();

type SettingsFields = Pick<User, "timezone" | "quiet_hours_start" | "quiet_hours_end" | "email_digest">;

export const settingsView = (u: SettingsFields): z.infer<typeof SettingsSchema> => ({
  timezone: u.timezone,
  quiet_hours: u.quiet_hours_start && u.quiet_hours_end ? { start: u.quiet_hours_start, end: u.quiet_hours_end } : null,
  email_digest: u.email_digest === "daily" ? "daily" : "off",
});

/** When an email to this user due now may go: null for now, else the end of their quiet hours. */
export const heldUntil = (u: SettingsFields, at = now()) => quietUntil(at, u.timezone, settingsView(u).quiet_hours);

export const nextDigestAt = (u: Pick<User, "timezone">, after = now()) =>
  nextLocalTime(after, u.timezone, DIGEST_LOCAL_MINUTES);

/** Saves the settings; a digest turned on (or moved to another zone) is armed for its next 08:00, turned off disarmed. */
export async function updateSettings(user: User, input: z.infer<typeof SettingsInput>) {
  const updated = await db.user.update({
    where: { id: user.id },
    data: {
      ...(input.timezone ? { timezone: input.timezone } : {}),
      ...(input.quiet_hours !== undefined
        ? { quiet_hours_start: input.quiet_hours?.start ?? null, quiet_hours_end: input.quiet_hours?.end ?? null }
        : {}),
      ...(input.email_digest ? { email_digest: input.email_digest } : {}),
      updated_at: new Date(),
    },
  });
  const wanted = updated.email_digest === "daily" ? nextDigestAt(updated) : null;
  if (wanted?.getTime() !== updated.next_digest_at?.getTime()) {
    if (updated.next_digest_at) await scheduler().disarmDigest(user.id, updated.next_digest_at);
    await db.user.update({ where: { id: user.id }, data: { next_digest_at: wanted } });
    if (wanted) await scheduler().armDigest(user.id, wanted);
  }
  return db.user.findUniqueOrThrow({ where: { id: user.id } });
}
