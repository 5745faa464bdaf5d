import nextVitals from "eslint-config-next/core-web-vitals";
import nextTs from "eslint-config-next/typescript";
import reactHooks from "eslint-plugin-react-hooks";

/**
 * The React Compiler's rules (every react-hooks rule but the two classic ones) compile each function of a file to
 * check it: two thirds of the lint's time. Components and hooks live in app/ and emails/; elsewhere they are off.
 */
const compilerRules = Object.fromEntries(
  Object.keys(reactHooks.configs["recommended-latest"].rules)
    .filter((rule) => !["react-hooks/rules-of-hooks", "react-hooks/exhaustive-deps"].includes(rule))
    .map((rule) => [rule, "off"]),
);

const config = [
  ...nextVitals,
  ...nextTs,
  // Black-box tests read arbitrary JSON bodies.
  { files: ["tests/**", "e2e/**", "scripts/bench/**"], rules: { "@typescript-eslint/no-explicit-any": "off" } },
  { files: ["**/*.{js,mjs,cjs,ts,mts,cts}"], ignores: ["app/**", "emails/**"], rules: compilerRules },
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
