/**
 * Every channel a watch (or a follow) can notify, in the order they are listed and shown. Adding a channel: its spec
 * beside this file and one line here, its server module and one line in server/notify/channels/index.ts.
 */
import { discord } from "./discord";
import { email } from "./email";
import { ntfy } from "./ntfy";
import { slack } from "./slack";
import { teams } from "./teams";
import { telegram } from "./telegram";
import { webhook } from "./webhook";
import type { ChannelSpec } from "./spec";

export const CHANNEL_SPECS = [email, webhook, slack, discord, teams, telegram, ntfy] as const;

export type ChannelType = (typeof CHANNEL_SPECS)[number]["type"];
export const CHANNEL_TYPES = CHANNEL_SPECS.map((s) => s.type) as [ChannelType, ...ChannelType[]];

export const specOf = (type: string): ChannelSpec | undefined => CHANNEL_SPECS.find((s) => s.type === type);

export { parseApprise, APPRISE_SCHEMES } from "./apprise";
export { AppriseError, type ChannelConfig, type ChannelSpec, type Field } from "./spec";
export { mapSecrets, REDACTED } from "./secrets";
