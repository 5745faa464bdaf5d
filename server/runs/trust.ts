/**
 * Whether a finding may be sent: confident enough, and backed by enough independent sites. Sites are
 * registrable domains from the public-suffix list (`a.example.co.uk` and `www.example.co.uk` are one site, two
 * `*.github.io` pages are two); a provider's redirector link that could not be resolved counts by its title, which
 * names the source's own domain.
 */
import { getDomain } from "tldts";
import { isGroundingRedirect } from "../agent/sources";

export type Gate = { passed: boolean; reason: string | null };
export type TrustBounds = { min_confidence: number; min_sources: number };

function siteOf(source: { url: string; title: string }): string | null {
  if (!URL.canParse(source.url)) return null;
  const target = isGroundingRedirect(source.url) ? source.title.trim() : source.url;
  const host = URL.canParse(target) ? new URL(target).hostname : target.toLowerCase();
  return getDomain(target, { allowPrivateDomains: true }) ?? (host || null);
}

/** The number of distinct sites among a run's sources. */
export function independentSites(sources: { url: string; title: string }[]): number {
  return new Set(sources.map(siteOf).filter((s): s is string => !!s)).size;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

export function gate(
  finding: { confidence: number; sources: { url: string; title: string }[] },
  bounds: TrustBounds,
): Gate {
  const reasons: string[] = [];
  if (finding.confidence < bounds.min_confidence)
    reasons.push(`confidence ${finding.confidence} is below ${bounds.min_confidence}`);
  const sites = independentSites(finding.sources);
  if (sites < bounds.min_sources)
    reasons.push(`${plural(sites, "independent source")}, ${bounds.min_sources} required`);
  return { passed: reasons.length === 0, reason: reasons.length ? reasons.join("; ") : null };
}
