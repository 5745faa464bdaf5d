/** @type {import('next').NextConfig} */
const nextConfig = {
  // Loaded from node_modules at run time: wasm, native sockets and the durable engine do not survive bundling.
  serverExternalPackages: [
    "@electric-sql/pglite",
    "@electric-sql/pglite-socket",
    "@prisma/adapter-pg",
    "@dbos-inc/dbos-sdk",
    "pg",
    "bcryptjs",
    // One instance each for the front (scripts/front.mjs) and the bundled server code; OpenTelemetry's
    // instrumentations patch modules as Node loads them.
    "pino",
    "pino-pretty",
    "prom-client",
    "@opentelemetry/api",
    "@opentelemetry/sdk-node",
    "@opentelemetry/instrumentation-pg",
    "@opentelemetry/instrumentation-undici",
  ],
  outputFileTracingIncludes: { "/**": ["./prisma/**/*"] },
  poweredByHeader: false,
  // The test suites' build (tests/helpers/server.ts) leaves type checking to `npm run typecheck`.
  typescript: { ignoreBuildErrors: process.env.WATCH_BUILD_SKIP_TYPECHECK === "1" },
  typedRoutes: false,
  // Turbopack keeps a build's work on disk for the next build of this checkout (.next/cache, some 350 MB); a checkout
  // built once (CI's fresh clone) spends 15 % of its build writing it for nothing.
  experimental: { turbopackFileSystemCacheForBuild: process.env.WATCH_BUILD_CACHE !== "0" },
};

export default nextConfig;
