/**
 * The runtime's own fetch, without Next.js's layers. On the server Next.js replaces the global fetch with one that
 * consults its data cache and traces each call, over a second one that dedupes requests by building a `Request` of
 * every call (a POST's body included) only to pass the call on. Calls to model providers are never cached and an agent
 * run makes several (docs/benchmarks.md, CPU per run): scripts/start.mjs keeps the runtime's fetch before Next.js
 * loads. Without it (in-process tests) the global fetch is looked up at each call, so a test's stand-in is used.
 */
const native = (globalThis as { [k: symbol]: typeof fetch | undefined })[Symbol.for("watch.nativeFetch")];

export const plainFetch: typeof fetch = (input, init) => (native ?? globalThis.fetch)(input, init);
