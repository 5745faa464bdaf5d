import { CADENCE_CEILING, cadenceFloor, TRUST_DEFAULTS } from "@/server/tasks/schemas";
import { WatchForm } from "../ui/watch-form";

export const metadata = { title: "New watch" };

export default async function NewWatch({ searchParams }: { searchParams: Promise<{ query?: string; when?: string }> }) {
  const { query, when } = await searchParams;
  return (
    <main>
      <h1>New watch</h1>
      <p className="muted">Say what to look for and what counts as news. You can change everything later.</p>
      <WatchForm
        initial={{
          name: "",
          search_query: query?.slice(0, 2000) ?? "",
          condition_description: when?.slice(0, 4000) ?? "",
          email: "",
          webhook_url: "",
          webhook_method: "POST",
          ...TRUST_DEFAULTS,
          min_interval_minutes: cadenceFloor(),
          max_interval_minutes: CADENCE_CEILING,
        }}
        cadenceFloor={cadenceFloor()}
      />
    </main>
  );
}
