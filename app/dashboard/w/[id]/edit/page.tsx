import Link from "next/link";
import { viewer } from "@/server/api/server-caller";
import { cadenceFloor } from "@/server/tasks/schemas";
import { ownWatch } from "../../../ui/load";
import { WatchForm } from "../../../ui/watch-form";
import { isEdited } from "../../../ui/edited-channels";

export const metadata = { title: "Edit watch" };

export default async function EditWatch({ params }: { params: Promise<{ id: string }> }) {
  const [task, user] = await Promise.all([params.then((p) => ownWatch(p.id)), viewer()]);
  const email = task.notifications.find((n) => n.type === "email");
  const webhook = task.notifications.find((n) => n.type === "webhook");
  const accountEmail = user?.email ?? "";
  return (
    <main className="narrow">
      <Link className="breadcrumb" href={`/dashboard/w/${task.id}`}>
        ← {task.name}
      </Link>
      <div className="page-header">
        <div>
          <h1>Edit watch</h1>
        </div>
      </div>
      <WatchForm
        initial={{
          id: task.id,
          name: task.name,
          search_query: task.search_query,
          condition_description: task.condition_description,
          email_on: email?.type === "email",
          email: email?.type === "email" ? email.address : accountEmail,
          webhook_url: webhook?.type === "webhook" ? webhook.url : "",
          webhook_method: webhook?.type === "webhook" ? webhook.method : "POST",
          webhook_headers: webhook?.type === "webhook" ? webhook.headers : undefined,
          channels: task.notifications.filter(isEdited),
          min_confidence: task.min_confidence,
          min_sources: task.min_sources,
          min_interval_minutes: task.min_interval_minutes,
          max_interval_minutes: task.max_interval_minutes,
        }}
        cadenceFloor={cadenceFloor()}
        accountEmail={accountEmail}
      />
    </main>
  );
}
