import { handleRest } from "@/server/api/rest";

export const dynamic = "force-dynamic";
export { handleRest as GET, handleRest as POST, handleRest as PUT, handleRest as PATCH, handleRest as DELETE };
