/**
 * One built server for the HTTP suites (fresh embedded database, or DATABASE_URL when set), with the
 * Clerk Backend API stubbed locally. Test files reach it through `inject("server")` (tests/helpers/api.ts).
 */
import { exportPKCS8 } from "jose";
import type { TestProject } from "vitest/node";
import { clerkKeys, startClerkStub, TEST_AUTHORIZED_PARTY } from "./helpers/clerk";
import { ensureBuild, startServer } from "./helpers/server";

declare module "vitest" {
  export interface ProvidedContext {
    server: { url: string; clerkPrivatePem: string; clerkPublicPem: string; clerkApiUrl: string };
  }
}

export default async function setup(project: TestProject) {
  ensureBuild();
  const keys = await clerkKeys();
  const clerk = await startClerkStub();
  const server = await startServer(serverEnv(keys.publicPem, clerk.url));
  project.provide("server", {
    url: server.url,
    clerkPrivatePem: await exportPKCS8(keys.privateKey),
    clerkPublicPem: keys.publicPem,
    clerkApiUrl: clerk.url,
  });
  return async () => {
    await server.stop();
    await clerk.close();
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
