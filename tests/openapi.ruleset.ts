/**
 * The Spectral ruleset the served OpenAPI document is held to (tests/unit/openapi-lint.test.ts): Spectral's
 * `spectral:oas` recommended rules and the OWASP API Security ruleset, all of them, except where a rule is about
 * something this API does not do. Each such rule is narrowed or turned off below, with the reason.
 */
import owasp from "@stoplight/spectral-owasp-ruleset";
import { oas } from "@stoplight/spectral-rulesets";

/** What a client sends: parameters and request bodies (Spectral lints the document with its $refs resolved). */
const sent = (type: "string" | "array" | "integer") =>
  ["$.paths[*][*].parameters[*]", "$.paths[*][*].requestBody"].flatMap((root) => [
    `${root}..[?(@ && @.type=="${type}")]`,
    `${root}..[?(@ && @.type && @.type.constructor.name === "Array" && @.type.includes("${type}"))]`,
  ]);

/** An OWASP rule as written, applied to `given` instead of its own target. */
const narrowed = (name: keyof typeof owasp.rules, given: string | string[]) => ({ ...owasp.rules[name], given });

export const ruleset = {
  extends: [
    [oas, "recommended"],
    [owasp, "all"],
  ],
  rules: {
    // Size bounds protect the service from what clients send (OWASP API4, resource consumption). Every string, array
    // and integer a request can carry is bounded; the answers' are not, because the service writes them (a watch's
    // answer is as long as the model's, a list as long as the caller's page).
    "owasp:api4:2023-string-limit": narrowed("owasp:api4:2023-string-limit", sent("string")),
    "owasp:api4:2023-array-limit": narrowed("owasp:api4:2023-array-limit", sent("array")),
    "owasp:api4:2023-integer-limit": narrowed("owasp:api4:2023-integer-limit", sent("integer")),
    "owasp:api4:2023-integer-format": narrowed("owasp:api4:2023-integer-format", sent("integer")),
    "owasp:api4:2023-string-restricted": narrowed("owasp:api4:2023-string-restricted", sent("string")),

    // CORS: the API grants no cross-origin access on purpose. Its callers are servers, scripts and the SDK, not other
    // sites' pages; a browser on another site must not call it with a signed-in user's cookies, so no answer carries
    // Access-Control-Allow-Origin, and declaring the header would be false.
    "owasp:api8:2023-define-cors-origin": "off",
  },
};
