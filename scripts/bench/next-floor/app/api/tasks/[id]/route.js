import { createFloor } from "../../../../../floor-sql.mjs";

const floor = (globalThis.__floor ??= createFloor(process.env.DATABASE_URL));
export const dynamic = "force-dynamic";

export async function GET(req, { params }) {
  const userId = await floor.authenticate(req.headers.get("authorization"));
  if (!userId) return Response.json({ detail: "Invalid API key" }, { status: 401 });
  return Response.json(await floor.get(userId, (await params).id));
}
