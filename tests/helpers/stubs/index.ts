/**
 * Every outside service the app talks to, stubbed locally in one fixture: Clerk (a signing key for session tokens and
 * the Backend API), the model (OpenAI-compatible, steered per watch), SearXNG, Resend and a webhook receiver. The
 * in-process tier (../service.ts) starts one per test file, the black-box tier one per run for its shared servers
 * (../../global-setup.ts), the browser tests one for theirs.
 *
 *   stubs.model.answer("iPhone 18 release", decisionFor({ finding_key: "announced" }))  // this watch's next answer
 *   stubs.model.decide((query) => …)          // every other watch's answer (default: a met finding)
 *   const release = stubs.model.hold("q")      // that watch's run waits before its answer, until release()
 *   stubs.receiver.reply("/down", () => ({ status: 503 }))  // webhooks to `${stubs.receiver.url}/down` fail
 *   stubs.resend.emails()                     // what was sent, oldest first
 *
 * From another process (a worker of the black-box tier, a browser test), `remoteStubs(stubs.urls)` does the same
 * through the stubs' control endpoints (./http.ts), asynchronously.
 */
import { clerkKeys, mintSessionToken, startClerkStub, TEST_AUTHORIZED_PARTY } from "../clerk";
import type { StubReply, StubRequest } from "./http";
import { decisionFor, startModelStub, startSearxStub, type StubDecision } from "./model";
import { newestLink, startResendStub, startWebhookReceiver } from "./receivers";

export type Stubs = Awaited<ReturnType<typeof startStubs>>;

export async function startStubs() {
  const answers = new Map<string, StubDecision>();
  let fallback: (query: string) => StubDecision = () => decisionFor();
  /** Search queries whose answer waits until released (a run seen under way). */
  const holds = new Map<string, { held: Promise<void>; release: () => void }>();
  const release = (query: string) => {
    holds.get(query)?.release();
    holds.delete(query);
  };
  const hold = (query: string) => {
    let resolve!: () => void;
    const held = new Promise<void>((r) => (resolve = r));
    holds.set(query, { held, release: resolve });
    return () => release(query);
  };
  const modelOptions: { answerDelayMs?: number; beforeAnswer?: (query: string) => Promise<void> } = {
    beforeAnswer: async (query) => holds.get(query)?.held,
  };
  const replies = new Map<string, () => StubReply>();
  let sendEmail: () => StubReply = () => ({ json: { id: `email_${Date.now()}` } });

  const [keys, clerk, model, searx, resend, receiver] = await Promise.all([
    clerkKeys(),
    startClerkStub(),
    startModelStub((query) => answers.get(query) ?? fallback(query), modelOptions),
    startSearxStub(),
    startResendStub(() => sendEmail()),
    startWebhookReceiver((req) => (replies.get(new URL(req.url, "http://x").pathname) ?? (() => ({ text: "ok" })))()),
  ]);

  model.onControl(
    (m: { answer?: { query: string; decision: StubDecision }; delay?: number; hold?: string; release?: string }) => {
      if (m.answer) answers.set(m.answer.query, m.answer.decision);
      if (m.delay !== undefined) modelOptions.answerDelayMs = m.delay;
      if (m.hold !== undefined) hold(m.hold);
      if (m.release !== undefined) release(m.release);
    },
  );
  receiver.onControl((m: { path: string; reply: StubReply }) => replies.set(m.path, () => m.reply));
  resend.onControl((m: { reply: StubReply }) => void (sendEmail = () => m.reply));

  return {
    /** Where each stub listens, for `remoteStubs` in another process. */
    urls: { clerk: clerk.url, model: model.url, searx: searx.url, resend: resend.url, receiver: receiver.url },
    clerk: {
      ...clerk,
      keys,
      /** A session token for this Clerk user id (`_dev`/`_admin` in it: that role; `user_gone…`: no such user). */
      token: (userId: string, opts?: Parameters<typeof mintSessionToken>[2]) => mintSessionToken(keys, userId, opts),
      /** Changes the user's profile at Clerk (what an edit in Clerk's dashboard does). */
      edit: (userId: string, patch: Record<string, unknown>) =>
        fetch(`${clerk.url}/__test/users/${userId}`, { method: "POST", body: JSON.stringify(patch) }),
    },
    model: {
      ...model,
      /** What the model answers for the watch with this search query, until changed. */
      answer: (query: string, decision: StubDecision) => void answers.set(query, decision),
      /** What it answers for every other watch. */
      decide: (decide: (query: string) => StubDecision) => void (fallback = decide),
      /** Its final answer comes this much later (a run that stays open for a moment). */
      delay: (ms: number) => void (modelOptions.answerDelayMs = ms),
      /** The watch with this search query waits before its final answer until the returned release is called. */
      hold,
    },
    searx,
    resend: { ...resend, reply: (reply: () => StubReply) => void (sendEmail = reply) },
    receiver: {
      ...receiver,
      /** How the receiver answers deliveries to this path (default 200 "ok"). */
      reply: (path: string, reply: () => StubReply) => void replies.set(path, reply),
      /** The deliveries to this path, oldest first. */
      to: (path: string) => receiver.requests.filter((r) => r.url === path),
    },
    /** Server variables for Clerk: tokens signed with `clerk.keys` and issued for the test origin, profiles from the stub. */
    clerkEnv: (): Record<string, string> => ({
      CLERK_SECRET_KEY: "sk_test_dummy",
      CLERK_PUBLISHABLE_KEY: "pk_test_ZXhhbXBsZS5jbGVyay5hY2NvdW50cy5kZXYk",
      CLERK_JWT_KEY: keys.publicPem,
      CLERK_API_URL: clerk.url,
      CLERK_AUTHORIZED_PARTIES: TEST_AUTHORIZED_PARTY,
    }),
    /** Server variables for the agent (model and search) and email; webhooks may go to loopback addresses. */
    servicesEnv: (): Record<string, string> => ({
      AGENT_MODEL: "openai-compatible:stub",
      AGENT_BASE_URL: `${model.url}/v1`,
      SEARXNG_URL: searx.url,
      RESEND_API_KEY: "re_test",
      RESEND_BASE_URL: resend.url,
      WEBHOOK_ALLOW_PRIVATE: "1",
    }),
    close: () => Promise.all([clerk, model, searx, resend, receiver].map((s) => s.close())).then(() => undefined),
  };
}

export type StubUrls = Stubs["urls"];

/** The stubs of another process (`stubs.urls`), steered and read through their control endpoints. */
export function remoteStubs(urls: StubUrls) {
  const control = async (url: string, message: unknown) => {
    const res = await fetch(`${url}/__stub/control`, { method: "POST", body: JSON.stringify(message) });
    if (!res.ok) throw new Error(`stub control at ${url}: ${res.status}`);
  };
  const requests = async (url: string) => (await (await fetch(`${url}/__stub/requests`)).json()) as StubRequest[];
  const emails = async () =>
    (await requests(urls.resend))
      .filter((r) => r.method === "POST" && r.url.startsWith("/emails"))
      .map((r) => JSON.parse(r.body));
  return {
    clerk: {
      url: urls.clerk,
      edit: (userId: string, patch: Record<string, unknown>) =>
        fetch(`${urls.clerk}/__test/users/${userId}`, { method: "POST", body: JSON.stringify(patch) }),
    },
    model: {
      url: urls.model,
      answer: (query: string, decision: StubDecision) => control(urls.model, { answer: { query, decision } }),
      delay: (ms: number) => control(urls.model, { delay: ms }),
      /** The watch with this search query waits before its final answer; resolves to its release. */
      hold: async (query: string) => {
        await control(urls.model, { hold: query });
        return () => control(urls.model, { release: query });
      },
    },
    resend: {
      url: urls.resend,
      emails,
      linkIn: async (to: string, path: string) => newestLink(await emails(), to, path),
      reply: (reply: StubReply) => control(urls.resend, { reply }),
    },
    receiver: {
      url: urls.receiver,
      to: async (path: string) => (await requests(urls.receiver)).filter((r) => r.url === path),
      reply: (path: string, reply: StubReply) => control(urls.receiver, { path, reply }),
    },
  };
}
