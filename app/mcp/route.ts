import { route } from "@/server/http/route";
import { handleMcp } from "@/server/mcp/http";

export const dynamic = "force-dynamic";

const handler = route({}, (req) => handleMcp(req));
export { handler as GET, handler as POST, handler as PUT, handler as PATCH, handler as DELETE, handler as OPTIONS };
