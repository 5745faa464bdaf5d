/** Runs once when the server process starts, before it answers any request. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // Tracing first, so that the database client it instruments is loaded after it; not even loaded when off.
  if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) (await import("./server/observability/tracing")).startTracing();
  const { startServices } = await import("./server/lifecycle");
  await startServices();
}
