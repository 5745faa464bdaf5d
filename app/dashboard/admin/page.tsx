import { notFound } from "next/navigation";
import { serverCaller, viewer } from "@/server/api/server-caller";
import { plural } from "@/server/render/dates";
import { Time } from "../../ui/time";

export const metadata = { title: "Waitlist" };

export default async function Waitlist() {
  if ((await viewer())?.role !== "admin") notFound();
  const entries = await (await serverCaller()).public.waitlist();
  return (
    <main>
      <div className="page-header">
        <div>
          <h1>Waitlist</h1>
          <p className="lead">{plural(entries.length, "person", "people")}, in the order they joined.</p>
        </div>
      </div>
      {entries.length ? (
        <div className="table-wrap cards">
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
                  <td data-label="#" className="num">
                    {e.position}
                  </td>
                  <td data-label="Email">{e.email}</td>
                  <td data-label="Joined">
                    <Time iso={e.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </main>
  );
}
