import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/api/root";
import { jsonTooDeep, TOO_DEEP } from "@/server/api/json";
import { createContext } from "@/server/api/trpc";
import { MAX_BATCH_SIZE } from "../limits";

export const dynamic = "force-dynamic";

const handler = async (original: Request) => {
  // The inputs (a JSON body, or `?input=` of a query) are checked for depth before tRPC parses them (server/api/json.ts).
  const body = original.method === "POST" ? await original.text() : null;
  if (jsonTooDeep(body ?? new URL(original.url).searchParams.get("input") ?? ""))
    return Response.json(
      { error: { message: TOO_DEEP, code: -32600, data: { code: "BAD_REQUEST", httpStatus: 400 } } },
      { status: 400 },
    );
  const req = body === null ? original : new Request(original.url, { method: "POST", headers: original.headers, body });
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    maxBatchSize: MAX_BATCH_SIZE,
    createContext: () => createContext({ headers: req.headers, via: "trpc", httpMethod: req.method }),
    // Procedures log their own failures with the request's id (the base procedure in server/api/trpc.ts).
    responseMeta: ({ ctx }) => ({ headers: ctx ? { ...ctx.res.headers, "x-request-id": ctx.requestId } : {} }),
  });
};

export { handler as GET, handler as POST };
