/** Gotify sets no limit of its own: Watch's caps, message 4,000 characters and title 250. */
import { defineLimits } from "../kit/fit";
import { LIMITS } from "./payload";

type Message = { title: string; message: string };

export const limits = defineLimits({
  max: {
    message: { max: LIMITS.message, unit: "characters" },
    title: { max: LIMITS.title, unit: "characters" },
  },
  measure: (request) => {
    const b = request.body as Message;
    return [
      ["message", "message", b.message],
      ["title", "title", b.title],
    ];
  },
  texts: (request) => {
    const b = request.body as Message;
    return [
      { markup: "plain", text: b.title },
      { markup: "markdown", text: b.message },
    ];
  },
});
