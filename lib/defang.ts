/**
 * Text of someone else's choosing, made inert where it would read as a link: mail and chat clients turn URLs and bare
 * domains into links on their own, so a watch named "WIN A PRIZE at https://prize.com" would otherwise put a live
 * link of its owner's choosing into a mail we send to a stranger. Schemes become `hxxp(s)://`, and the dots of a
 * URL's host, of `www.` names, of IP addresses and of names under a real top-level domain (public-suffix aware, so
 * "Next.js" stays as written) become `[.]`: `hxxps://prize[.]com/claim`. The text is otherwise unchanged; escaping
 * for the format is still the renderer's job.
 */
import { parse } from "tldts";

const SCHEME_AND_HOST = /\b([a-z][a-z0-9+.-]*):\/\/([^\s/?#]*)/giu;
const NAME = /(?<![\p{L}\p{N}_.-])(?:[\p{L}\p{N}_-]+\.)+[\p{L}\p{N}_-]+/gu;

const dotless = (host: string) => host.replaceAll(".", "[.]");

function linkable(name: string) {
  if (/^www\./i.test(name)) return true;
  const p = parse(name);
  return p.isIp === true || (p.domain !== null && p.isIcann === true);
}

export function defang(text: string): string {
  return text
    .replace(SCHEME_AND_HOST, (_all, scheme: string, host: string) => {
      const inert = /^https?$/i.test(scheme) ? scheme.replace(/t/g, "x").replace(/T/g, "X") : scheme;
      return `${inert}://${dotless(host)}`;
    })
    .replace(NAME, (name) => (linkable(name) ? dotless(name) : name));
}
