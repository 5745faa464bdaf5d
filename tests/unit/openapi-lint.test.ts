/**
 * The served OpenAPI document passes Spectral's OpenAPI rules and the OWASP API Security rules that apply to this API
 * (tests/openapi.ruleset.ts says which do not, and why): no errors.
 */
import { Spectral, type ISpectralDiagnostic } from "@stoplight/spectral-core";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/server/api/openapi";
import { ruleset } from "../openapi.ruleset";

type Doc = { paths: Record<string, Record<string, any>> };

async function lint(doc: object) {
  const spectral = new Spectral();
  spectral.setRuleset(ruleset as never);
  return spectral.run(JSON.stringify(doc));
}
const where = (d: ISpectralDiagnostic) => `${d.code} at ${d.path.join(".")}: ${d.message}`;

describe("OpenAPI lint", { timeout: 60_000 }, () => {
  it("has no errors under spectral:oas and the OWASP rules that apply", async () => {
    const diagnostics = await lint(openApiDocument());
    expect(diagnostics.filter((d) => d.severity === 0).map(where)).toEqual([]);
    // Warnings are advice (an operation without a description, a free-text field without a pattern): printed, not failed.
    const warnings: Record<string, number> = {};
    for (const d of diagnostics) if (d.severity === 1) warnings[d.code] = (warnings[d.code] ?? 0) + 1;
    console.log("Spectral warnings:", warnings);
  });

  it("still catches what the narrowed rules are for, and a missing rate-limit header", async () => {
    const doc = structuredClone(openApiDocument()) as unknown as Doc;
    delete doc.paths["/api/v1/tasks"]!.post.requestBody.content["application/json"].schema.properties.name.maxLength;
    delete doc.paths["/api/v1/tasks/{id}/executions"]!.get.parameters.find((p: { name: string }) => p.name === "limit")
      .schema.maximum;
    delete doc.paths["/api/v1/public/tasks"]!.get.responses["200"].headers["X-RateLimit-Limit"];
    const codes = (await lint(doc)).filter((d) => d.severity === 0).map((d) => d.code);
    expect(codes.sort()).toEqual([
      "owasp:api4:2023-integer-limit",
      "owasp:api4:2023-rate-limit",
      "owasp:api4:2023-string-limit",
    ]);
  });
});
