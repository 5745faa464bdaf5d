// Floor (2): a bare Next.js route handler doing the same SQL.
import { createFloor } from "../../../../floor-sql.mjs";

const floor = (globalThis.__floor ??= createFloor(process.env.DATABASE_URL));
export const dynamic = "force-dynamic";

export async function GET(req) {
  const userId = await floor.authenticate(req.headers.get("authorization"));
  if (!userId) return Response.json({ detail: "Invalid API key" }, { status: 401 });
  return Response.json(await floor.list(userId));
}

export async function POST(req) {
  const userId = await floor.authenticate(req.headers.get("authorization"));
  if (!userId) return Response.json({ detail: "Invalid API key" }, { status: 401 });
  return Response.json(await floor.create(userId, await req.json()));
}
