/**
 * Telegram's sendMessage: the text is "1-4096 characters after entities parsing" (core.telegram.org/bots/api), so in
 * HTML mode tags and link destinations do not count and an entity counts as the one character it stands for. Telegram
 * documents no bound on a link's destination: Watch keeps each within 2,048 characters and shows a longer source by
 * its site.
 */
import { defineLimits } from "../kit/fit";

type Body = { text: string };

export const TELEGRAM = defineLimits({
  max: {
    text: { max: 4096, unit: "characters after entities" },
    "link destination": { max: 2048, unit: "characters" },
  },
  measure({ body }) {
    const { text } = body as Body;
    return [
      ["text", "text", text],
      ...[...text.matchAll(/<a href="([^"]*)">/g)].map(
        (m, i) => ["link destination", `text: link ${i + 1}`, m[1]!] as const,
      ),
    ];
  },
  texts: ({ body }) => [{ markup: "html", text: (body as Body).text }],
  // @username (5 to 32 letters, digits or _) in the text a reader sees (not in a link's destination); a word joiner
  // after the @ breaks it.
  mentions: /@[A-Za-z0-9_]{5}/,
});
