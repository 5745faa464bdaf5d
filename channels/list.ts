/**
 * Every channel a watch (or a follow) can notify, in the order they are listed and shown: one folder each beside this
 * file, one line here. Adding a channel is its folder, its line, and the value in prisma's NotificationType (a
 * migration); the API's shapes, validation, redaction, Apprise URLs, the delivery workflow, test sends, followers, the
 * dashboard's editor, the SDK, watchctl, MCP and the shared conformance tests take it from this list.
 */
import { z } from "zod";
import type { Channel } from "./kit/define";
import { apprise } from "./apprise/index";
import { discord } from "./discord";
import { email } from "./email";
import { googlechat } from "./googlechat";
import { gotify } from "./gotify";
import { matrix } from "./matrix";
import { mattermost } from "./mattermost";
import { ntfy } from "./ntfy";
import { pushover } from "./pushover";
import { slack } from "./slack";
import { teams } from "./teams";
import { telegram } from "./telegram";
import { webhook } from "./webhook";

// The Apprise API relay last: a pasted URL is read as any other service's before as a relay's `/notify/…`.
export const CHANNELS = [
  email,
  webhook,
  slack,
  discord,
  teams,
  telegram,
  ntfy,
  mattermost,
  googlechat,
  matrix,
  pushover,
  gotify,
  apprise,
] as const;

export type ChannelType = (typeof CHANNELS)[number]["type"];
export const CHANNEL_TYPES = CHANNELS.map((c) => c.type) as [ChannelType, ...ChannelType[]];

const POSITIONS = new Map<string, number>(CHANNELS.map((c, i) => [c.type, i]));
/** A type's place in the list (-1: not listed), the order every read shows channels in. */
export const channelPosition = (type: string) => POSITIONS.get(type) ?? -1;

/** A listed channel by its type (its config then typed loosely: `channel.schema` parses it). */
export const channelOf = (type: string): Channel | undefined => CHANNELS[channelPosition(type)] as Channel | undefined;

export const NotificationTypeSchema = z.enum(CHANNEL_TYPES);

type Schemas<T> = { -readonly [K in keyof T]: T[K] extends { schema: infer S } ? S : never };
/** A channel config as the API takes and shows it, any listed type. */
export const NotificationConfig = z.discriminatedUnion(
  "type",
  CHANNELS.map((c) => c.schema) as unknown as Schemas<typeof CHANNELS>,
);
export type NotificationConfig = z.infer<typeof NotificationConfig>;

/** The operator's settings every listed channel reads (e.g. TELEGRAM_API_URL), for the server's configuration. */
export const CHANNEL_SETTINGS = Object.assign({}, ...CHANNELS.map((c) => c.settings ?? {})) as {
  [K in keyof UnionToIntersection<Settings<(typeof CHANNELS)[number]>>]: UnionToIntersection<
    Settings<(typeof CHANNELS)[number]>
  >[K];
};
type Settings<C> = C extends { settings?: infer S } ? NonNullable<S> : never;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
