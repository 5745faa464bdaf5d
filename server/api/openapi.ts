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
  requestBody?: {
    content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }>;
  };
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

/** Conditional GET of the public reads (CONTRACT §10). */
const idParameter = { name: "id", in: "path", required: true, schema: { type: "string", format: "uuid" } };
const ifNoneMatch = {
  name: "If-None-Match",
  in: "header",
  required: false,
  schema: { type: "string" },
  description: "The ETag of the copy you hold: 304 without a body when it is current (still counted by the rate limit)",
};
const cacheHeaders = {
  ETag: { schema: { type: "string" }, description: "The representation's entity tag" },
  "Cache-Control": { schema: { type: "string" }, description: "`public, max-age=60`" },
};
const notModified: Response = {
  description: "Not Modified: your copy (If-None-Match) is current",
  headers: cacheHeaders,
};

type ProcedureMeta = {
  openapi?: { method: string; path: string; protect?: boolean; errorResponses?: Record<number, string> };
};

/**
 * Each operation's error responses from its own metadata. (The generator caches one response object per status code
 * across operations, so a description leaked from one operation into every other; and it treats every operation as
 * protected unless told otherwise.) Authenticated operations add 401, authenticated writes the per-user 429; every
 * operation can answer 422 and, while the database is unreachable, 503.
 */
function operationMetas() {
  const metas = new Map<string, NonNullable<ProcedureMeta["openapi"]>>();
  for (const procedure of Object.values(appRouter._def.procedures) as unknown as { _def: { meta?: ProcedureMeta } }[]) {
    const openapi = procedure._def.meta?.openapi;
    if (openapi) metas.set(`${openapi.method.toLowerCase()} ${openapi.path}`, openapi);
  }
  return metas;
}

function build() {
  const doc = generateOpenApiDocument(appRouter, {
    title: "Watch API",
    version: "1.0.0",
    baseUrl: "/",
    description:
      "Watches (called *tasks* in paths and payloads) are checked by an AI agent with grounded web search; " +
      "you are notified by email or signed webhook when the condition is met. Authenticate with " +
      '`Authorization: Bearer <API key or Clerk session token>`. Errors are `{"detail": string}`, ' +
      "validation errors 422 with a list of `{type, loc, msg, input}`.",
    securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "API key (sk_…) or Clerk session JWT" } },
  });
  const metas = operationMetas();
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item as Record<string, Operation>)) {
      const meta = metas.get(`${method} ${path}`);
      if (!meta) throw new Error(`OpenAPI: no procedure metadata for ${method.toUpperCase()} ${path}`);
      const isProtected = meta.protect !== false;
      const responses: Record<string, Response> = {};
      if (method === "delete" && path === "/api/v1/tasks/{id}") responses["204"] = { description: "Deleted" };
      else responses["200"] = op.responses["200"]!;
      const errors: Record<string, string> = {};
      if (isProtected) errors["401"] = "Missing, invalid or expired credentials";
      if (isProtected && method !== "get") errors["429"] = "Rate limit exceeded";
      Object.assign(errors, meta.errorResponses);
      for (const [status, description] of Object.entries(errors).sort(([a], [b]) => Number(a) - Number(b)))
        responses[status] = errorBody(description);
      responses["422"] = validationBody;
      responses["503"] = errors["503"]
        ? { ...unavailableBody, description: `${errors["503"]}; or the database cannot be reached` }
        : unavailableBody;
      op.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
      if (isProtected) op.security = [{ bearer: [] }];
      else delete op.security;
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
  // The feeds and the badge are served by their own route handlers (app/api/v1/public/tasks/id/[id]/…).
  const paths = (doc.paths ??= {}) as Record<string, unknown>;
  for (const [suffix, summary, type, description] of [
    [
      "rss",
      "RSS 2.0 feed of a public watch's findings and retractions (last 50 findings, newest first); 10/min per IP with feed.json",
      "application/rss+xml",
      "RSS 2.0",
    ],
    [
      "feed.json",
      "JSON Feed 1.1 with the RSS feed's items; 10/min per IP with rss",
      "application/feed+json",
      "JSON Feed 1.1",
    ],
    [
      "badge.svg",
      "SVG badge of a public watch's verdict (`watch | met · 2 Nov 2026`); 60/min per IP",
      "image/svg+xml",
      "SVG image",
    ],
  ] as const)
    paths[`/api/v1/public/tasks/id/{id}/${suffix}`] = {
      get: {
        tags: ["public"],
        summary,
        parameters: [idParameter, ifNoneMatch],
        responses: {
          "200": { description, headers: cacheHeaders, content: { [type]: { schema: { type: "string" } } } },
          "304": notModified,
          "404": errorBody("Task not found"),
          "422": validationBody,
          "429": errorBody("Rate limit exceeded"),
          "503": unavailableBody,
        },
      },
    };
  const publicTask = (paths["/api/v1/public/tasks/id/{id}"] as { get: Operation }).get;
  publicTask.parameters = [...(publicTask.parameters ?? []), ifNoneMatch];
  publicTask.responses["200"] = { ...publicTask.responses["200"]!, headers: cacheHeaders };
  publicTask.responses = Object.fromEntries(
    Object.entries({ ...publicTask.responses, "304": notModified }).sort(([a], [b]) => Number(a) - Number(b)),
  );
  return doc;
}

let cached: ReturnType<typeof build> | undefined;
export const openApiDocument = () => (cached ??= build());
