import Link from "next/link";
import { serverCaller } from "@/server/api/server-caller";
import { VerdictPill } from "../../ui/pill";
import { Time } from "../../ui/time";
import { FollowChannels } from "../ui/follow";

export const metadata = { title: "Following" };

export default async function Following() {
  const follows = await (await serverCaller()).follows.list();
  return (
    <main>
      <div className="page-header">
        <div>
          <h1>Following</h1>
          <p className="lead">
            Other people&apos;s public watches: their findings (and retractions) reach your own channels, without
            copying the watch or paying for its checks. Their authors see how many follow, never who.
          </p>
        </div>
      </div>
      {follows.length ? (
        follows.map((f) => (
          <article className="card" key={f.task.id} data-testid="follow">
            <div className="spread">
              <h2 className="card-title">
                <Link href={`/w/${f.task.id}`}>{f.task.name}</Link>
              </h2>
              <VerdictPill status={f.task.resolution.status} />
            </div>
            <p className="meta">
              <span>by @{f.task.owner?.username}</span>
              {f.task.resolution.since ? (
                <span>
                  found <Time iso={f.task.resolution.since} format="date" />
                </span>
              ) : null}
              <span>
                following since <Time iso={f.created_at} format="date" />
              </span>
            </p>
            <p className="muted small">{f.task.condition_description}</p>
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
