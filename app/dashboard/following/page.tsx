import Link from "next/link";
import { serverCaller } from "@/server/api/server-caller";
import { FollowChannels } from "../ui/follow";
import { Time } from "../ui/time";

export const metadata = { title: "Following" };

export default async function Following() {
  const follows = await (await serverCaller()).follows.list();
  return (
    <main className="wide">
      <h1>Following</h1>
      <p className="muted">
        Public watches of other people that you follow: you get their findings (and retractions) on your own channels,
        without copying the watch or paying for its checks. Their authors see how many follow, never who.
      </p>
      {follows.length ? (
        follows.map((f) => (
          <article className="card" key={f.task.id} data-testid="follow">
            <h2>
              <Link href={`/w/${f.task.id}`}>{f.task.name}</Link>
            </h2>
            <p className="muted small">
              by @{f.task.owner?.username} · following since <Time iso={f.created_at} /> ·{" "}
              {f.task.condition_description}
            </p>
            <FollowChannels taskId={f.task.id} notifications={f.notifications} />
          </article>
        ))
      ) : (
        <p className="notice">
          You follow no watch yet. <Link href="/explore">Explore public watches</Link> and press Follow on one.
        </p>
      )}
    </main>
  );
}
