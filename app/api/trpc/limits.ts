/** Procedures per batched /api/trpc request: the server answers 400 past it, the dashboard's client splits batches at it. */
export const MAX_BATCH_SIZE = 10;
