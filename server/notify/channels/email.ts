/** Email through Resend (../email): planned first (quiet hours, daily digest), then sent under the email caps. */
import { z } from "zod";
import { email as spec } from "../../../client/channels/email";
import { text } from "../../../lib/text";
import { invalid } from "./http";
import { defineChannel } from "./types";

/** Loaded when first needed: the mail module's views import the wire schemas, which are built from this registry. */
const mail = () => import("../email");

export const EmailNotification = z
  .object({ type: z.literal("email"), address: text() })
  .meta({ id: "EmailNotification", description: "Email notification channel" });

export const email = defineChannel({
  type: "email",
  spec,
  schema: EmailNotification,
  check(c) {
    const address = c.address.trim().toLowerCase();
    if (!z.email({ pattern: z.regexes.html5Email }).safeParse(address).success)
      throw invalid(`'${c.address}' is not a valid email address`);
    return { type: "email", address };
  },
  // An email is not retried on failure; one skipped for the hourly cap is sent again when the hour has room.
  retryDelaysMs: [],
  plan: async (executionId, notice, followId) => (await mail()).planEmail(executionId, notice, followId),
  deliver: async (executionId, notice, attempt, followId) =>
    (await mail()).deliverEmail(executionId, notice, followId, attempt),
  test: async (user, task, c) => (await mail()).sendTestEmail(user, task, c.address),
  stepIds: {
    attempt: (n) => (n === 1 ? "deliver-email" : `deliver-email-${n}`),
    wait: (n) => `email-cap-wait-${n + 1}`,
  },
});
