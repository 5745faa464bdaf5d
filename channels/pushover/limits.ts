/** Pushover's limits: message 1,024 characters, title 250, supplementary URL 512 and its title 100. */
import { defineLimits } from "../kit/fit";
import { LIMITS } from "./payload";

type Message = { title: string; message: string; url?: string; url_title?: string };

export const limits = defineLimits({
  max: {
    message: { max: LIMITS.message, unit: "characters" },
    title: { max: LIMITS.title, unit: "characters" },
    url: { max: LIMITS.url, unit: "characters" },
    "url title": { max: LIMITS.url_title, unit: "characters" },
  },
  measure: (request) => {
    const b = request.body as Message;
    return [
      ["message", "message", b.message],
      ["title", "title", b.title],
      ["url", "url", b.url ?? ""],
      ["url title", "url_title", b.url_title ?? ""],
    ];
  },
  texts: (request) => {
    const b = request.body as Message;
    return [
      { markup: "plain", text: b.title },
      { markup: "html", text: b.message },
    ];
  },
});
