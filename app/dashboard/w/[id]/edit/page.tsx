import { ownWatch } from "../../../ui/load";
import { cadenceFloor } from "@/server/tasks/schemas";
import { WatchForm } from "../../../ui/watch-form";

export const metadata = { title: "Edit watch" };

export default async function EditWatch({ params }: { params: Promise<{ id: string }> }) {
  const task = await ownWatch((await params).id);
  const email = task.notifications.find((n) => n.type === "email");
  const webhook = task.notifications.find((n) => n.type === "webhook");
  return (
    <main>
      <h1>Edit watch</h1>
      <WatchForm
        initial={{
          id: task.id,
          name: task.name,
          search_query: task.search_query,
          condition_description: task.condition_description,
          email: email?.type === "email" ? email.address : "",
          webhook_url: webhook?.type === "webhook" ? webhook.url : "",
          webhook_method: webhook?.type === "webhook" ? webhook.method : "POST",
          webhook_headers: webhook?.type === "webhook" ? webhook.headers : undefined,
          min_confidence: task.min_confidence,
          min_sources: task.min_sources,
          min_interval_minutes: task.min_interval_minutes,
          max_interval_minutes: task.max_interval_minutes,
        }}
        cadenceFloor={cadenceFloor()}
      />
    </main>
  );
}
