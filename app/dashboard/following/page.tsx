import Link from "next/link";
import { serverCaller } from "@/server/api/server-caller";
import { WatchCard } from "../../ui/watch-card";
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
        <div className="stack">
          {follows.map((f) => (
            <WatchCard
              key={f.task.id}
              task={f.task}
              testId="follow"
              meta={
                <span>
                  following since <Time iso={f.created_at} format="date" />
                </span>
              }
            >
              <FollowChannels taskId={f.task.id} notifications={f.notifications} />
            </WatchCard>
          ))}
        </div>
      ) : (
        <p className="notice">
          You follow no watch yet. <Link href="/explore">Explore public watches</Link> and press Follow on one.
        </p>
      )}
    </main>
  );
}
