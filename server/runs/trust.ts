/**
 * Whether a finding may be sent: confident enough for the owner's bound, and backed by enough independent sites (the
 * registrable domains of its sources, `siteOf`), so one report copied across a site's pages counts once.
 */
import { siteOf } from "../agent/sources";

export type Gate = { passed: boolean; reason: string | null };
export type TrustBounds = { min_confidence: number; min_sources: number };

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
