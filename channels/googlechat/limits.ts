/** Google Chat's limit: a message of 32,000 bytes; its card texts read as HTML, its preview text as Chat's markup. */
import { defineLimits, type Rendered } from "../kit/fit";
import { MESSAGE_MAX_BYTES } from "./payload";

type Message = {
  text: string;
  cardsV2: { card: { sections: { widgets: Record<string, { text?: string }>[] }[] } }[];
};

export const limits = defineLimits({
  max: { message: { max: MESSAGE_MAX_BYTES, unit: "bytes of JSON" } },
  measure: (request) => [["message", "body", request.body]],
  texts: (request) => {
    const b = request.body as Message;
    const cards: Rendered[] = b.cardsV2.flatMap((c) =>
      c.card.sections.flatMap((s) =>
        s.widgets.flatMap((w) =>
          w.textParagraph?.text ? [{ markup: "html" as const, text: w.textParagraph.text }] : [],
        ),
      ),
    );
    return [{ markup: "plain", text: b.text }, ...cards];
  },
  mentions: /<users\//,
});
