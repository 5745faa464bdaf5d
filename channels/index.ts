/**
 * The channel floor: one folder per channel (its fields, secrets, Apprise forms, payload and delivery as data), the
 * list of them, and the kit they share. Read by the server, the dashboard, watchctl and the SDK; imports none of them.
 */
export * from "./list";
export { APPRISE_SCHEMES, parseApprise } from "./apprise";
export { AppriseError } from "./kit/apprise";
export { ConfigError, type Channel, type ChannelConfig, type CheckContext, type Field } from "./kit/define";
export { mapSecrets, redactedView, redactSecret, REDACTED, withKeptSecrets, LOOKS_REDACTED } from "./kit/secrets";
