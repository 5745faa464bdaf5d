/**
 * Email through Resend. Its config and checks live here; the server plans and sends each email itself
 * (server/notify/email.ts: quiet hours, the daily digest, the email caps, address verification).
 */
import { z } from "zod";
import { text } from "../../lib/text";
import { ConfigError, defineChannel, field } from "../kit/define";

export const email = defineChannel({
  type: "email",
  label: "Email",
  help: "Any address. One other than your account's gets a confirmation link first; nothing is sent to it until it is confirmed.",
  api: { id: "EmailNotification", description: "Email notification channel" },
  fields: {
    address: field(text(), { label: "Email address", kind: "email", placeholder: "you@example.com" }),
  },
  example: { address: "you@example.com" },
  check(c) {
    const address = c.address.trim().toLowerCase();
    if (!z.email({ pattern: z.regexes.html5Email }).safeParse(address).success)
      throw new ConfigError(`'${c.address}' is not a valid email address`);
    return { type: "email", address };
  },
  summary: (c) => String(c.address ?? ""),
});
