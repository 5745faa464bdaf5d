/**
 * Text that can be stored: PostgreSQL rejects NUL bytes (a 500 before this check) and a lone UTF-16 surrogate cannot
 * be encoded as UTF-8 (the driver would silently store U+FFFD). Every string input schema starts from `text()`, and
 * model output is cleaned with `storable()` before it is recorded.
 */
import { z } from "zod";

export const TEXT_PROBLEM = "must not contain NUL characters or unpaired surrogates";

const isStorable = (s: string) => !s.includes("\0") && s.isWellFormed();

export const text = () => z.string().refine(isStorable, TEXT_PROBLEM);

/** A JSON value with NUL characters removed and unpaired surrogates replaced (U+FFFD), in strings and keys. */
export function storable<T>(value: T): T {
  if (typeof value === "string") return (isStorable(value) ? value : value.replaceAll("\0", "").toWellFormed()) as T;
  if (Array.isArray(value)) return value.map(storable) as T;
  if (value && typeof value === "object" && !(value instanceof Date))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [storable(k), storable(v)])) as T;
  return value;
}
