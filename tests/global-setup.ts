/**
 * The black-box tier's shared server: the built server (fresh embedded database, or DATABASE_URL when set) with every
 * outside service stubbed (tests/helpers/stubs: Clerk, the model, search, Resend, a webhook receiver), Clerk sign-in
 * and SERVICE_NOAUTH=1 (requests from this machine without credentials act as the test user), and TRUST_PROXY=1 so
 * that a test speaks as a visitor from an address of its own (X-Forwarded-For), apart from other tests' per-IP limits.
 * Test files reach it through tests/helpers/api.ts (`call`, `server()`, `sharedStubs()`).
 */
import { exportPKCS8 } from "jose";
import type { TestProject } from "vitest/node";
import { ensureBuild, serverUsage, startServer } from "./helpers/server";
import { startStubs, type StubUrls } from "./helpers/stubs";
import { TEST_AUTHORIZED_PARTY } from "./helpers/clerk";

declare module "vitest" {
  export interface ProvidedContext {
    server: { url: string; clerkPrivatePem: string; clerkPublicPem: string; stubs: StubUrls };
  }
}

export default async function setup(project: TestProject) {
  await ensureBuild();
  const started = Date.now();
  const stubs = await startStubs();
  const server = await startServer({
    ...stubs.clerkEnv(),
    ...stubs.servicesEnv(),
    SERVICE_NOAUTH: "1",
    TRUST_PROXY: "1",
    // Every file speaks as the one development account when it sends no credentials, side by side with the others:
    // its per-account limits would count all of them together. The limits themselves are tested in process.
    RATE_LIMIT_READS_PER_MIN: "1000000",
    RATE_LIMIT_USER_PER_MIN: "1000000",
  });
  console.log(`shared test server ready in ${Math.round((Date.now() - started) / 1000)} s`);
  project.provide("server", {
    url: server.url,
    clerkPrivatePem: await exportPKCS8(stubs.clerk.keys.privateKey),
    clerkPublicPem: stubs.clerk.keys.publicPem,
    stubs: stubs.urls,
  });
  return async () => {
    await server.stop();
    await stubs.close();
    console.log(`the shared test server used ${Math.round(serverUsage.cpuMs / 1000)} s of CPU`);
  };
}

export function serverEnv(clerkPublicPem: string, clerkApiUrl: string): Record<string, string> {
  return {
    CLERK_SECRET_KEY: "sk_test_dummy",
    CLERK_PUBLISHABLE_KEY: "pk_test_ZXhhbXBsZS5jbGVyay5hY2NvdW50cy5kZXYk",
    CLERK_JWT_KEY: clerkPublicPem,
    CLERK_API_URL: clerkApiUrl,
    CLERK_AUTHORIZED_PARTIES: TEST_AUTHORIZED_PARTY,
  };
}
