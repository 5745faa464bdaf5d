/**
 * Where a run's evidence came from, as the owner should see it. Providers report grounding differently: sources
 * (Gemini's grounding chunks, OpenAI's url_citation annotations, Anthropic's web search results, Perplexity's
 * citations), Perplexity's titled `search_results` in the response body, our own search tool's results. Gemini's
 * are short-lived redirector links titled with the source's domain: each is followed once to record the real page.
 */
import { getDomain } from "tldts";
import { env } from "../env";
import { guardedFetch } from "../net/guarded-fetch";
import { AGENT_USER_AGENT } from "./search";

export type Source = { url: string; title: string };

type Research = {
  sources: { sourceType: string; url?: string; title?: string }[];
  steps: { toolResults: { output: unknown }[]; response: { body?: unknown } }[];
};

const GEMINI_REDIRECTOR = { host: "vertexaisearch.cloud.google.com", path: "/grounding-api-redirect/" };
const RESOLVE_TIMEOUT_MS = 3_000;

/** The sources a provider (or our search tool) reported during the research. */
export function reportedSources(research: Research): Source[] {
  const titled = (list: unknown) =>
    Array.isArray(list)
      ? list.filter((x): x is Source => typeof x?.url === "string").map((x) => ({ url: x.url, title: x.title ?? "" }))
      : [];
  return [
    ...research.sources.flatMap((s) => (s.sourceType === "url" && s.url ? [{ url: s.url, title: s.title ?? "" }] : [])),
    ...research.steps.flatMap((step) => [
      ...step.toolResults.flatMap((r) => titled((r.output as { results?: unknown } | undefined)?.results)),
      // Perplexity: the SDK turns `citations` into untitled sources; the titles are in `search_results`.
      ...titled((step.response.body as { search_results?: unknown } | undefined)?.search_results),
    ]),
  ];
}

/**
 * The site a source belongs to: the registrable domain of its page (public-suffix aware, so `a.example.co.uk` and
 * `www.example.co.uk` are one site and two `*.github.io` pages are two); a provider's redirector link that could not
 * be resolved counts by its title, which names the source's own domain.
 */
export function siteOf(source: Source): string | null {
  const key = `${source.url}\n${source.title}`;
  let site = sites.get(key);
  if (site !== undefined) return site;
  site = readSite(source);
  if (sites.size >= SITES_KEPT) sites.clear();
  sites.set(key, site);
  return site;
}

/**
 * Sites worked out already, by URL and title: every read of a watch shows its sources again, and working one out
 * parses its URL three times (a list of 50 watches spent 3 % of its CPU on it). Bounded: emptied when full.
 */
const sites = new Map<string, string | null>();
const SITES_KEPT = 5000;

function readSite(source: Source): string | null {
  if (!URL.canParse(source.url)) return null;
  const target = isGroundingRedirect(source.url) ? source.title.trim() : source.url;
  const host = URL.canParse(target) ? new URL(target).hostname : target.toLowerCase();
  return getDomain(target, { allowPrivateDomains: true }) ?? (host || null);
}

/** A source as every view shows it: with its site (`domain`, empty when it has none). */
export const withDomain = (s: Source) => ({ url: s.url, title: s.title, domain: siteOf(s) ?? "" });

/** "uefa.com": a title that is only a domain name (Gemini titles its grounding chunks so). */
export function isDomainName(title: string) {
  return /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/i.test(title.trim());
}

/** The site's name to show for a page without a title: its host without `www.`. */
export function siteName(url: string) {
  return new URL(url).hostname.replace(/^www\./, "");
}

/** A page's URL without the tracking parameter OpenAI adds to its citations. */
export function withoutTracking(url: string) {
  if (!url.includes("utm_source=openai")) return url;
  const u = new URL(url);
  u.searchParams.delete("utm_source");
  return u.toString();
}

/**
 * A Gemini grounding redirector link: on Google's redirector host, or on the host the provider is served from when
 * AGENT_BASE_URL points it elsewhere (a proxy, or the tests' stub replaying recorded responses).
 */
export function isGroundingRedirect(url: string, providerBaseUrl?: string) {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (!u.pathname.startsWith(GEMINI_REDIRECTOR.path)) return false;
  if (u.protocol === "https:" && u.hostname === GEMINI_REDIRECTOR.host) return true;
  return !!providerBaseUrl && u.origin === new URL(providerBaseUrl).origin;
}

/** Where the redirector sends its link (its Location, followed no further), or null when it does not say. */
async function followOnce(url: string): Promise<string | null> {
  try {
    const res = await guardedFetch(url, {
      headers: { "user-agent": AGENT_USER_AGENT },
      timeoutMs: RESOLVE_TIMEOUT_MS,
      maxBytes: 16 * 1024,
      allowPrivate: env.AGENT_FETCH_ALLOW_PRIVATE,
    });
    const location = res.headers.location;
    if (res.status < 300 || res.status >= 400 || typeof location !== "string") return null;
    const page = new URL(location, url);
    return page.protocol === "https:" || page.protocol === "http:" ? page.toString() : null;
  } catch {
    return null;
  }
}

/**
 * Grounding redirector links replaced by the page they lead to, titled with its site's name when the provider's
 * title is only a domain; a link that cannot be resolved (expired, unreachable, slow) is kept as the provider gave it.
 */
export async function resolveGroundingRedirects(sources: Source[], providerBaseUrl?: string): Promise<Source[]> {
  const pages = new Map<string, Promise<string | null>>();
  return Promise.all(
    sources.map(async (s) => {
      if (!isGroundingRedirect(s.url, providerBaseUrl)) return s;
      if (!pages.has(s.url)) pages.set(s.url, followOnce(s.url));
      const page = await pages.get(s.url)!;
      if (!page) return s;
      return { url: page, title: !s.title || isDomainName(s.title) ? siteName(page) : s.title };
    }),
  );
}
