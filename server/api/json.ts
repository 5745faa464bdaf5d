/**
 * JSON from clients is parsed by recursive code (validation, error formatting): a body nested thousands of levels
 * deep overflows the stack. Bodies and query inputs nested deeper than MAX_JSON_DEPTH are refused before parsing.
 */
export const MAX_JSON_DEPTH = 64;

/** Whether `text` opens more than `max` arrays/objects inside each other (strings are skipped; one linear scan). */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > max) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}

export const TOO_DEEP = `JSON nested more than ${MAX_JSON_DEPTH} levels deep`;
