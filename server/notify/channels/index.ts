/**
 * Every channel a watch or a signed-in follower can be notified on, one module each. Adding a channel: its spec in
 * client/channels (fields, secrets, Apprise URLs, help) and its module here (config schema, checks, message), one line
 * in each registry, the value in prisma's NotificationType, its tests and docs/channels.md. Everything else (the
 * API's shapes, validation, redaction, the delivery workflow and its engines, test sends, followers) comes from here.
 */
import { z } from "zod";
import { discord } from "./discord";
import { email } from "./email";
import { ntfy } from "./ntfy";
import { slack } from "./slack";
import { teams } from "./teams";
import { telegram } from "./telegram";
import { webhook } from "./webhook";
import type { Channel } from "./types";

export const CHANNELS = [email, webhook, slack, discord, teams, telegram, ntfy] as const;

export type ChannelType = (typeof CHANNELS)[number]["type"];
export const CHANNEL_TYPES = CHANNELS.map((c) => c.type) as [ChannelType, ...ChannelType[]];

export const NotificationTypeSchema = z.enum(CHANNEL_TYPES);

type Schemas<T> = { -readonly [K in keyof T]: T[K] extends { schema: infer S } ? S : never };
export const NotificationConfig = z.discriminatedUnion(
  "type",
  CHANNELS.map((c) => c.schema) as unknown as Schemas<typeof CHANNELS>,
);
export type NotificationConfig = z.infer<typeof NotificationConfig>;

export const channelOf = (type: string): Channel | undefined =>
  CHANNELS.find((c) => c.type === type) as Channel | undefined;
