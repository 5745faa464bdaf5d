/** Every channel a watch (or a follow) can notify, in the order they are listed and shown. */
import { discord } from "./discord";
import { email } from "./email";
import { ntfy } from "./ntfy";
import { slack } from "./slack";
import { teams } from "./teams";
import { telegram } from "./telegram";
import { webhook } from "./webhook";

export const CHANNEL_SPECS = [email, webhook, slack, discord, teams, telegram, ntfy] as const;
