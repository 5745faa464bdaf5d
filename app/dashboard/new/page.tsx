import { viewer } from "@/server/api/server-caller";
import { CADENCE_CEILING, cadenceFloor, TRUST_DEFAULTS } from "@/server/tasks/schemas";
import { WatchForm } from "../ui/watch-form";

export const metadata = { title: "New watch" };

export default async function NewWatch({ searchParams }: { searchParams: Promise<{ query?: string; when?: string }> }) {
  const [{ query, when }, user] = await Promise.all([searchParams, viewer()]);
  const email = user?.email ?? "";
  return (
    <main className="narrow">
      <div className="page-header">
        <div>
          <h1>New watch</h1>
          <p className="lead">Say what to look for and what counts as news. You can change everything later.</p>
        </div>
      </div>
      <WatchForm
        initial={{
          name: "",
          search_query: query?.slice(0, 2000) ?? "",
          condition_description: when?.slice(0, 4000) ?? "",
          // Someone should hear about a finding: the account's own address, on, unless they turn it off.
          email_on: !!email,
          email,
          webhook_url: "",
          webhook_method: "POST",
          channels: [],
          ...TRUST_DEFAULTS,
          min_interval_minutes: cadenceFloor(),
          max_interval_minutes: CADENCE_CEILING,
        }}
        cadenceFloor={cadenceFloor()}
        accountEmail={email}
      />
    </main>
  );
}
