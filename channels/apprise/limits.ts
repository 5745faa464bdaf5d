/**
 * The Apprise API passes a message on to services with limits of their own (where Apprise splits or cuts it): Watch's
 * caps, title 250 characters and body 4,000, what most chat and push services take whole.
 */
import { defineLimits } from "../kit/fit";
import { LIMITS } from "./payload";

type Notification = { title: string; body: string };

export const limits = defineLimits({
  max: {
    body: { max: LIMITS.body, unit: "characters" },
    title: { max: LIMITS.title, unit: "characters" },
  },
  measure: (request) => {
    const b = request.body as Notification;
    return [
      ["body", "body", b.body],
      ["title", "title", b.title],
    ];
  },
  texts: (request) => {
    const b = request.body as Notification;
    return [
      { markup: "markdown", text: b.title },
      { markup: "markdown", text: b.body },
    ];
  },
  // What the services behind it act on: Discord's and Slack's, Mattermost's, Matrix's, Google Chat's.
  mentions: /@(everyone|here|channel|all|room)\b|<!(channel|here|everyone)>|<users\//i,
});
