import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";

const config = [
  ...nextVitals,
  ...nextTs,
  // Black-box tests read arbitrary JSON bodies.
  { files: ["tests/**", "e2e/**", "scripts/bench/**"], rules: { "@typescript-eslint/no-explicit-any": "off" } },
  // Playwright fixtures take a `use` callback that is not React's `use` hook.
  { files: ["e2e/**"], rules: { "react-hooks/rules-of-hooks": "off" } },
  {
    ignores: [
      "**/.next/**",
      "node_modules/**",
      "server/db/generated/**",
      ".data/**",
      "next-env.d.ts",
      "e2e/screenshots/**",
    ],
  },
];

export default config;
