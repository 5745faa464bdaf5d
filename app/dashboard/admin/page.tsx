import { notFound } from "next/navigation";
import { serverCaller, viewer } from "@/server/api/server-caller";
import { Time } from "../ui/time";

export const metadata = { title: "Waitlist" };

export default async function Waitlist() {
  if ((await viewer())?.role !== "admin") notFound();
  const entries = await (await serverCaller()).public.waitlist();
  return (
    <main>
      <h1>Waitlist</h1>
      <p className="muted">{entries.length} people, in the order they joined.</p>
      {entries.length ? (
        <table>
          <caption className="sr-only">Waitlist entries</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Email</th>
              <th scope="col">Joined</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.email}>
                <td>{e.position}</td>
                <td>{e.email}</td>
                <td>
                  <Time iso={e.created_at} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </main>
  );
}
