/**
 * The OpenAPI 3.1 document, generated from the routers (schemas, and each procedure's `errorResponses`),
 * then made true to the wire: errors are `{detail}` bodies, validation errors the 422 list, DELETE of a
 * watch answers 204, and `force` of execute is a query parameter.
 */
import { generateOpenApiDocument } from "trpc-to-openapi";
import { appRouter } from "./root";

type Response = { description?: string; content?: unknown; headers?: unknown };
type Operation = {
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown; description?: string }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }> };
  responses: Record<string, Response>;
  security?: unknown[];
};

const errorBody = (description: string): Response => ({
  description,
  content: {
    "application/json": {
      schema: { type: "object", properties: { detail: { type: "string" } }, required: ["detail"] },
    },
  },
});

/** Any endpoint while the database cannot be reached (server/db/availability.ts). */
const unavailableBody: Response = {
  ...errorBody("The database cannot be reached; retry after `Retry-After` seconds"),
  headers: { "Retry-After": { schema: { type: "integer" }, description: "Seconds to wait before retrying" } },
};

const validationBody: Response = {
  description: "Validation error",
  content: {
    "application/json": {
      schema: {
        type: "object",
        properties: {
          detail: {
            type: "array",
            items: {
              type: "object",
              properties: {
                type: { type: "string", examples: ["missing", "enum", "string_type", "uuid_parsing"] },
                loc: { type: "array", items: { oneOf: [{ type: "string" }, { type: "integer" }] } },
                msg: { type: "string" },
                input: {},
              },
              required: ["type", "loc", "msg", "input"],
            },
          },
        },
      },
    },
  },
};

function build() {
  const doc = generateOpenApiDocument(appRouter, {
    title: "Watch API",
    version: "1.0.0",
    baseUrl: "/",
    description:
      "Watches (called *tasks* in paths and payloads) are checked by an AI agent with grounded web search; " +
      "you are notified by email or signed webhook when the condition is met. Authenticate with " +
      "`Authorization: Bearer <API key or Clerk session token>`. Errors are `{\"detail\": string}`, " +
      "validation errors 422 with a list of `{type, loc, msg, input}`.",
    securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "API key (sk_…) or Clerk session JWT" } },
  });
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, Operation>)) {
      const responses: Record<string, Response> = {};
      if (method === "delete" && path === "/api/v1/tasks/{id}") responses["204"] = { description: "Deleted" };
      else responses["200"] = op.responses["200"]!;
      if (op.security?.length) responses["401"] = errorBody("Missing, invalid or expired credentials");
      for (const [status, r] of Object.entries(op.responses))
        if (Number(status) >= 400) responses[status] = errorBody(r.description ?? "Error");
      responses["422"] = validationBody;
      responses["500"] ??= errorBody("Internal error");
      responses["503"] ??= unavailableBody;
      op.responses = responses;
      if (method === "post" && path === "/api/v1/tasks/{id}/execute") {
        delete op.requestBody;
        (op.parameters ??= []).push({
          name: "force",
          in: "query",
          required: false,
          schema: { type: "boolean" },
          description: "Cancel an open execution and start a new one",
        });
      }
    }
  }
  // RSS is XML, served by its own route handler (app/api/v1/public/tasks/id/[id]/rss).
  (doc.paths ??= {})["/api/v1/public/tasks/id/{id}/rss"] = {
    get: {
      tags: ["public"],
      summary: "RSS 2.0 feed of a public watch's findings (last 50, newest first)",
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
      responses: {
        "200": { description: "RSS 2.0", content: { "application/rss+xml": { schema: { type: "string" } } } },
        "404": errorBody("Task not found"),
        "422": validationBody,
        "429": errorBody("Rate limit exceeded"),
        "503": unavailableBody,
      },
    },
  } as never;
  return doc;
}

let cached: ReturnType<typeof build> | undefined;
export const openApiDocument = () => (cached ??= build());
