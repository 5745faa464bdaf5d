/**
 * Two built servers for the browser tests, with every external service stubbed locally (agent model,
 * SearXNG, Resend, Clerk Backend API, a webhook receiver):
 *  - "clerk": signed-in users come from locally minted Clerk session cookies;
 *  - "noauth": SERVICE_NOAUTH=1 without Clerk keys, the offline development mode.
 * The model answers every query with a finding; "hostile" queries with an attacker's answer, "withdrawn" ones
 * retract their finding at the second check, and "failing" ones get the provider's 503. The webhook receiver answers
 * 200, except 410 on a path with "/gone" (refused for good) and 500 on one with "/down" (retried).
 * Tests read the URLs and the Clerk signing key from process.env (set here, inherited by the workers).
 */
import fs from "node:fs";
import { exportPKCS8 } from "jose";
import { clerkKeys, startClerkStub } from "../tests/helpers/clerk";
import { ensureBuild, startServer } from "../tests/helpers/server";
import {
  decisionFor,
  hostileDecision,
  startModelStub,
  startSearxStub,
  stubbedServiceEnv,
} from "../tests/helpers/stubs/model";
import { startResendStub, startWebhookReceiver } from "../tests/helpers/stubs/receivers";
import { serverEnv } from "../tests/global-setup";

const checked = new Map<string, number>();
const withdrawn = decisionFor({
  condition_met: false,
  notify: false,
  notification: null,
  retracts_previous: true,
  answer: "The announcement was withdrawn.",
});

export default async function globalSetup() {
  await ensureBuild();
  const keys = await clerkKeys();
  const [clerk, model, searx, resend, receiver] = await Promise.all([
    startClerkStub(),
    // A visible moment of "the agent is checking" in the browser; a query with "hostile" gets an attacker's answer.
    // A query with "withdrawn" finds something at its first check and retracts it at the next.
    startModelStub(
      (query) => {
        if (query.includes("hostile")) return hostileDecision();
        if (query.includes("failing")) return { providerError: 503 };
        const checks = (checked.get(query) ?? 0) + 1;
        checked.set(query, checks);
        return query.includes("withdrawn") && checks > 1 ? withdrawn : decisionFor();
      },
      // A "slow" query thinks for 10 s after its search, long enough to watch its steps on a busy machine.
      {
        answerDelayMs: 2500,
        beforeAnswer: (query) => new Promise((r) => setTimeout(r, query.includes("slow") ? 7500 : 0)),
      },
    ),
    startSearxStub(),
    startResendStub(),
    startWebhookReceiver((req) =>
      req.url.includes("/gone")
        ? { status: 410, text: "gone" }
        : req.url.includes("/down")
          ? { status: 500, text: "down" }
          : { status: 200, text: "ok" },
    ),
  ]);
  const services = stubbedServiceEnv({ model, searx, resend });
  const [clerkServer, noauthServer] = await Promise.all([
    startServer({ ...withoutKey(services, "SERVICE_NOAUTH"), ...serverEnv(keys.publicPem, clerk.url) }),
    // Every no-auth test speaks as the one development account from one address, side by side with the others: its
    // per-account and per-address limits would count all of them together (a page answered 429). Per-account limits
    // are lifted; per-address ones count in one-second windows, more than a browser asks at a person's pace. The limits
    // themselves are tested in process and on the HTTP tier's servers.
    startServer({
      ...services,
      RATE_LIMIT_READS_PER_MIN: "1000000",
      RATE_LIMIT_USER_PER_MIN: "1000000",
      RATE_LIMIT_WINDOW_MS: "1000",
    }),
  ]);
  process.env.E2E_CLERK_URL = clerkServer.url;
  process.env.E2E_NOAUTH_URL = noauthServer.url;
  process.env.E2E_CLERK_PRIVATE_PEM = await exportPKCS8(keys.privateKey);
  process.env.E2E_RECEIVER_URL = receiver.url;
  process.env.E2E_RESEND_URL = resend.url;
  return async () => {
    await Promise.all([clerkServer.stop(), noauthServer.stop()]);
    // Server logs next to Playwright's own results (a CI artifact) for failures seen only in the browser.
    fs.mkdirSync("test-results", { recursive: true });
    fs.writeFileSync("test-results/server-clerk.log", clerkServer.output());
    fs.writeFileSync("test-results/server-noauth.log", noauthServer.output());
    await Promise.all([clerk, model, searx, resend, receiver].map((s) => s.close()));
  };
}

const withoutKey = (env: Record<string, string>, key: string) =>
  Object.fromEntries(Object.entries(env).filter(([k]) => k !== key));
