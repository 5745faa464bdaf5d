/**
 * Every channel a watch (or a follow) can notify, in the order they are listed and shown. Adding a channel: its spec
 * beside this file and one line in ./list, its server module and one line in server/notify/channels/index.ts.
 */
import { CHANNEL_SPECS } from "./list";
import type { ChannelSpec } from "./spec";

export { CHANNEL_SPECS };
export type ChannelType = (typeof CHANNEL_SPECS)[number]["type"];
export const CHANNEL_TYPES = CHANNEL_SPECS.map((s) => s.type) as [ChannelType, ...ChannelType[]];

export const specOf = (type: string): ChannelSpec | undefined => CHANNEL_SPECS.find((s) => s.type === type);

export { parseApprise, APPRISE_SCHEMES } from "./apprise";
export { AppriseError, type ChannelConfig, type ChannelSpec, type Field } from "./spec";
export { mapSecrets, REDACTED } from "./secrets";
