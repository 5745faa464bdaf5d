/** What the dashboard says about a watch's runs, shared by its server and browser components. */
export function duration(started: string, completed: string | null): string {
  if (!completed) return "—";
  const ms = new Date(completed).getTime() - new Date(started).getTime();
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** "92% sure": said only of a met finding (under a not-met answer a percentage reads as doubt). */
export const sureness = (confidence: number) => `${Math.round(confidence * 100)}% sure`;

/** A cadence bound in words: "15 min", "6 h", "7 days". */
export const interval = (minutes: number) =>
  minutes % 1440 === 0
    ? `${minutes / 1440} day${minutes === 1440 ? "" : "s"}`
    : minutes % 60 === 0
      ? `${minutes / 60} h`
      : `${minutes} min`;
