/**
 * How a run's notice reaches each listed channel (channels/list.ts) on the server: a channel whose folder describes
 * its request (chat and push) is delivered by ./chat through the address-checked transport; email and the signed
 * webhook are sent by their own modules. The delivery workflow (server/runs/workflow.ts) asks this module only.
 */
import { CHANNELS, type ChannelType } from "../../channels/list";
import { chatDelivery } from "./chat";
import type { ChannelDelivery } from "./deliveries";
import { deliverEmail, planEmail, sendTestEmail } from "./email";
import { RETRY_DELAYS_MS } from "./transport";
import { deliverWebhook, sendTestWebhook } from "./webhook";

/** The channels the server sends itself: no request description in their folder. */
const OWN: Partial<Record<ChannelType, ChannelDelivery>> = {
  email: {
    // An email is not retried on failure; one skipped for the hourly cap is sent again when the hour has room.
    retryDelaysMs: [],
    plan: (executionId, notice, followId) => planEmail(executionId, notice, followId),
    deliver: (executionId, notice, attempt, followId) => deliverEmail(executionId, notice, followId, attempt),
    test: (user, task, config) => sendTestEmail(user, task, String(config.address)),
    stepIds: {
      attempt: (n) => (n === 1 ? "deliver-email" : `deliver-email-${n}`),
      wait: (n) => `email-cap-wait-${n + 1}`,
    },
  },
  webhook: {
    retryDelaysMs: RETRY_DELAYS_MS,
    deliver: (executionId, notice, attempt, followId) => deliverWebhook(executionId, notice, attempt, followId),
    test: (user, task, config) => sendTestWebhook(user, task, config),
  },
};

const DELIVERIES = Object.fromEntries(
  CHANNELS.map((c) => {
    const delivery = c.delivery ? chatDelivery(c) : OWN[c.type];
    if (!delivery) throw new Error(`channel ${c.type} describes no delivery and the server sends none for it`);
    return [c.type, delivery];
  }),
) as Record<ChannelType, ChannelDelivery>;

export type { ChannelDelivery };

export const deliveryOf = (type: string): ChannelDelivery | undefined => DELIVERIES[type as ChannelType];
