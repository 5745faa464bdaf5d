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
  ],
  outputFileTracingIncludes: { "/**": ["./prisma/**/*"] },
  poweredByHeader: false,
  typedRoutes: false,
};

export default nextConfig;
