/**
 * An email's subject: a header line is at most 998 characters (RFC 5322, section 2.1.1). The subject is kept on one
 * line within it (its line breaks and runs of spaces read as one space), cut on a word.
 */
import { cutOnWord, type Limit } from "../kit/fit";

export const SUBJECT: Limit = { max: 998, unit: "characters" };

export const emailSubject = (raw: string) =>
  cutOnWord(
    raw
      .toWellFormed()
      .replace(/[\s\u0000-\u001F\u007F-\u009F]+/g, " ")
      .trim(),
    SUBJECT.max,
  );
