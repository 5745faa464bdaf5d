import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { audienceOf, listUserPublicTasks } from "@/server/public/service";
import { plural } from "@/server/render/dates";
import { pageRateLimit, TooManyRequests } from "../../rate-limit";
import { WatchCard } from "../../ui/watch-card";

export const dynamic = "force-dynamic";

async function load(username: string) {
  return listUserPublicTasks(username).catch(() => null);
}

export async function generateMetadata({ params }: { params: Promise<{ username: string }> }): Promise<Metadata> {
  const { username } = await params;
  return { title: `@${username.toLowerCase()}'s public watches` };
}

export default async function UserPage({ params }: { params: Promise<{ username: string }> }) {
  const retryAfter = await pageRateLimit("public-list");
  if (retryAfter) return <TooManyRequests retryAfter={retryAfter} />;
  const data = await load((await params).username);
  if (!data) notFound();
  const audiences = await audienceOf(data.tasks);
  return (
    <main className="wide">
      <div className="page-header">
        <div>
          <h1>@{data.username}</h1>
          <p className="lead">{plural(data.tasks.length, "public watch", "public watches")}</p>
        </div>
      </div>
      <div className="grid">
        {data.tasks.map((t) => (
          <WatchCard key={t.id} task={t} audience={audiences.get(t.id)} showOwner={false} />
        ))}
      </div>
    </main>
  );
}
