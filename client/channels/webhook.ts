import { defineSpec } from "./spec";

export const webhook = defineSpec({
  type: "webhook",
  label: "Webhook",
  help: "Any HTTPS endpoint of yours. Deliveries are signed with Standard Webhooks; verify them with the signing secret under Notifications.",
  fields: [
    { name: "url", label: "Webhook URL", kind: "url", placeholder: "https://example.com/hooks/watch" },
    { name: "method", label: "Method", kind: "choice", choices: ["POST", "PUT", "PATCH"], optional: true },
    { name: "headers", label: "Headers", kind: "headers", optional: true, secret: "export" },
  ],
  summary: (c) => `${String(c.method ?? "POST")} ${String(c.url ?? "")}`,
});
