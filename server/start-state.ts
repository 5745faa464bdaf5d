/**
 * What a start of the services keeps in memory beyond the database: caches bound to its configuration (a Clerk client,
 * the rate limiter, the security policy) or to its database (service keys, trending watches, API-key lookups). Each
 * module registers how to forget its part; the lifecycle forgets all of it when the services stop, so a later start in
 * the same process begins as a fresh process would (the in-process test tier runs file after file in one worker).
 */
const forgetters: (() => void)[] = [];

/** Registers how to forget a module's per-start state (called once, at the module's load). */
export function forgetOnStop(forget: () => void) {
  forgetters.push(forget);
}

export function forgetStartState() {
  for (const forget of forgetters) forget();
}
