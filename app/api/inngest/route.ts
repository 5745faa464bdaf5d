import { serve } from "inngest/next";
import { inngest } from "@/server/runs/inngest";
import { functions } from "@/inngest/functions";

export const dynamic = "force-dynamic";
export const { GET, POST, PUT } = serve({ client: inngest, functions });
