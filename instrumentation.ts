/** Runs once when the server process starts, before it answers any request. */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServices } = await import("./server/lifecycle");
  await startServices();
}
