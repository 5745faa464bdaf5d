import { defineSpec } from "./spec";

export const email = defineSpec({
  type: "email",
  label: "Email",
  help: "Any address. One other than your account's gets a confirmation link first; nothing is sent to it until it is confirmed.",
  fields: [{ name: "address", label: "Email address", kind: "email", placeholder: "you@example.com" }],
  summary: (c) => String(c.address ?? ""),
});
