import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { listUserPublicTasks } from "@/server/public/service";
import { WatchCard } from "../../components";
import { pageRateLimit, TooManyRequests } from "../../rate-limit";

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
  return (
    <main>
      <h1>@{data.username}</h1>
      <p className="muted">
        {data.tasks.length} public watch{data.tasks.length === 1 ? "" : "es"}
      </p>
      {data.tasks.map((t) => (
        <WatchCard key={t.id} task={t} />
      ))}
    </main>
  );
}
