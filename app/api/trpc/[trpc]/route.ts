import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/api/root";
import { createContext } from "@/server/api/trpc";
import { MAX_BATCH_SIZE } from "../limits";

export const dynamic = "force-dynamic";

const handler = (req: Request) =>
  fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    maxBatchSize: MAX_BATCH_SIZE,
    createContext: () => createContext({ headers: req.headers, via: "trpc", httpMethod: req.method }),
    onError: ({ error, path }) => {
      if (error.code === "INTERNAL_SERVER_ERROR") console.error(`tRPC ${path ?? ""} failed:`, error.cause ?? error);
    },
  });

export { handler as GET, handler as POST };
