/**
 * The runtime's own fetch, without Next.js's wrapper. On the server Next.js replaces the global fetch with one that
 * consults its data cache and dedupes and traces each call; calls to model providers are never cached,
 * and an agent run makes several of them (docs/benchmarks.md, CPU per run). Looked up at each call, so whatever
 * fetch a test puts in place is the one used.
 */
type PatchedFetch = typeof fetch & { _nextOriginalFetch?: typeof fetch };

export const plainFetch: typeof fetch = (input, init) => {
  const f = globalThis.fetch as PatchedFetch;
  return (f._nextOriginalFetch ?? f)(input, init);
};
