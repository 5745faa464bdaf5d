/**
 * The OpenAPI 3.1 document, generated: schemas from the routers' zod, every other fact from each operation's meta
 * (server/api/wire.ts) and the rate-limit buckets (server/ratelimit), read by the same functions the middleware uses:
 * success status, security (who may call), error answers, rate-limit headers and 429 texts, conditional GET, query
 * parameters of body requests. The route handlers of server/http/endpoints.ts are documented from their declarations
 * the same way. Operations endpoints (the health check) are left out. Nothing here names a path.
 */
import { generateOpenApiDocument } from "trpc-to-openapi";
import { z } from "zod";
import { ACCOUNT_DISABLED } from "../auth";
import { ENDPOINTS } from "../http/endpoints";
import { BUCKETS, describeLimit, limitOf, windowSeconds, type Bucket } from "../ratelimit";
import { ErrorSchema, ValidationErrorSchema } from "./errors";
import { appRouter } from "./root";
import { bucketsOf, REFUSED, successStatusOf, type Access, type CallType, type Meta, type WireMeta } from "./wire";
import { forgetOnStop } from "../start-state";

type Json = Record<string, unknown>;
type Response = { description: string; content?: Json; headers?: Record<string, unknown> };
type Parameter = { name: string; in: string; required?: boolean; schema?: unknown; description?: string };
type Operation = {
  parameters?: Parameter[];
  requestBody?: {
    required?: boolean;
    content: Record<string, { schema?: { properties?: Json; required?: string[] } }>;
  };
  responses: Record<string, Response>;
  security?: unknown[];
  "x-rate-limit"?: unknown;
};

/** What the document needs to know of an operation beyond its schemas. */
type Facts = WireMeta & { access: Access; type: CallType; errors: Record<number, string> };

const SECURITY_SCHEMES = {
  bearer: { type: "http", scheme: "bearer", description: "An API key (`sk_…`) or a Clerk session token." },
  admin: {
    type: "http",
    scheme: "bearer",
    description: "An API key or a Clerk session token of an account with the role `admin`.",
  },
  session: {
    type: "http",
    scheme: "bearer",
    description: "A Clerk session token (the dashboard's sign-in); API keys are refused.",
  },
} as const;

/** An empty requirement says "no credentials needed" in so many words (anonymous on purpose). */
const SECURITY: Record<Access, Record<string, string[]>[]> = {
  public: [{}],
  user: [{ bearer: [] }],
  admin: [{ admin: [] }],
  session: [{ session: [] }],
};

const TAGS = [
  ["tasks", "Watches (called tasks in paths and payloads), their runs and findings"],
  ["follows", "Following public watches, by email or with your own channels"],
  ["notifications", "Delivery history, redelivery, webhook signing secrets, links in notification emails"],
  ["public", "Anyone's public watches, their feeds and badge, the waitlist (no credentials)"],
  ["users", "Your username and settings"],
  ["usage", "Runs and tokens against your limits"],
  ["auth", "Your account and API keys"],
  ["admin", "Operator views (role admin)"],
  ["system", "Health"],
] as const;

const ref = (kind: "schemas" | "headers", name: string) => ({ $ref: `#/components/${kind}/${name}` });
const jsonBody = (schema: string) => ({ "application/json": { schema: ref("schemas", schema) } });
const int32 = (minimum: number) => ({ type: "integer", format: "int32", minimum, maximum: 2 ** 31 - 1 });

const HEADERS = {
  "X-RateLimit-Limit": {
    description:
      "Requests allowed in the current window, of the bucket this request counted against (of several, the one with the fewest left)",
    schema: int32(1),
  },
  "X-RateLimit-Remaining": { description: "Requests left in the current window", schema: int32(0) },
  "X-RateLimit-Reset": {
    description: "When the current window ends, in Unix seconds",
    schema: { type: "integer", format: "int64", minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
  },
  "Retry-After": { description: "Seconds to wait before retrying", schema: int32(0) },
  ETag: { description: "The representation's entity tag", schema: { type: "string", maxLength: 64 } },
  "Cache-Control": { description: "`public, max-age=60`", schema: { type: "string", maxLength: 64 } },
};
const RATE_LIMIT_HEADERS = ["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"];
const headerRefs = (names: string[]) => Object.fromEntries(names.map((n) => [n, ref("headers", n)]));

const IF_NONE_MATCH: Parameter = {
  name: "If-None-Match",
  in: "header",
  required: false,
  schema: { type: "string", maxLength: 1024 },
  description: "The ETag of the copy you hold: 304 without a body when it is current (still counted by the rate limit)",
};

const error = (description: string): Response => ({ description, content: jsonBody("Error") });
const joined = (texts: string[]) => [...new Set(texts)].join("; or ");

/** Every operation's facts, keyed "method path": the procedures' meta, and the route handlers' declarations. */
function operationFacts() {
  const facts = new Map<string, Facts>();
  for (const procedure of Object.values(appRouter._def.procedures) as unknown as {
    _def: { meta?: Meta; type: CallType };
  }[]) {
    const { openapi, ...meta } = procedure._def.meta ?? {};
    if (!openapi) continue;
    facts.set(`${openapi.method.toLowerCase()} ${openapi.path}`, {
      ...meta,
      access: meta.access ?? "public",
      type: procedure._def.type,
      errors: { ...(openapi.errorResponses as Record<number, string> | undefined) },
    });
  }
  for (const e of Object.values(ENDPOINTS))
    facts.set(`${e.method.toLowerCase()} ${e.path}`, {
      rateLimit: e.rateLimit,
      conditional: e.conditional,
      access: "public",
      type: "query",
      errors: { ...e.errorResponses },
    });
  return facts;
}

/** The route handlers' operations, for the generator to render their parameters from zod. */
function endpointPaths() {
  return Object.fromEntries(
    Object.values(ENDPOINTS).map((e) => [
      e.path,
      {
        [e.method.toLowerCase()]: {
          operationId: e.operationId,
          summary: e.summary,
          tags: [...e.tags],
          requestParams: { path: e.params },
          responses: {
            200: { description: e.produces.description, content: { [e.produces.type]: { schema: z.string() } } },
          },
        },
      },
    ]),
  );
}

/** How a 429 happens: over one of the operation's buckets, or (with credentials) too many refused ones. */
function limitedBecause(f: Facts, buckets: Bucket[]) {
  const reasons = buckets.map(describeLimit);
  if (f.access !== "public") reasons.push(describeLimit("api-key-failure"), describeLimit("refused-credentials"));
  return reasons.length ? `Rate limit exceeded: over ${reasons.join(", or over ")}` : undefined;
}

/**
 * The health check's answers. Monitors poll it, so it is never rate limited and carries no rate-limit headers; its
 * answer is documented as the operation's `default` (200 while the database answers, else the listed status), which
 * keeps it out of the rule that every 2xx and 4xx answer of a rate-limited API states its limits.
 */
function operationalResponses(f: Facts, generated: Response): Record<string, Response> {
  const statuses = Object.entries(f.alsoAnswers ?? {}).map(([code, text]) => `${code} when ${lowerFirst(text!)}`);
  return {
    default: {
      ...generated,
      description: `200 when the service is healthy${statuses.length ? `; ${statuses.join("; ")}` : ""}. Not rate limited`,
    },
  };
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

function responsesOf(f: Facts, generated: Response, hasInput: boolean, buckets: Bucket[]) {
  const status = successStatusOf(f);
  const success: Response = status === 204 ? { description: "No content" } : { ...generated };
  const responses: Record<string, Response> = { [status]: success };
  for (const [other, description] of Object.entries(f.alsoAnswers ?? {}))
    responses[other] = { ...success, description: description! };
  if (f.conditional) {
    success.headers = { ...success.headers, ...headerRefs(["ETag", "Cache-Control"]) };
    responses["304"] = {
      description: "Not Modified: your copy (If-None-Match) is current",
      headers: headerRefs(["ETag", "Cache-Control"]),
    };
  }

  const errors = new Map<number, string[]>();
  const add = (code: number, text: string | undefined) => text && errors.set(code, [...(errors.get(code) ?? []), text]);
  if (f.access !== "public") {
    add(401, "Missing, invalid or expired credentials");
    if (f.access === "session") add(403, REFUSED.sessionOnly);
    if (f.access === "admin") add(403, REFUSED.adminOnly);
    add(403, ACCOUNT_DISABLED);
    if (f.access !== "session") add(404, REFUSED.notSynced);
  }
  for (const [code, text] of Object.entries(f.errors)) add(Number(code), text);
  if (hasInput) add(422, "Validation error");
  add(429, limitedBecause(f, buckets));
  add(500, "Internal Server Error");
  for (const [code, texts] of errors) {
    if (code === 503) continue; // with the outage answer, below
    const r: Response =
      code === 422 ? { description: texts[0]!, content: jsonBody("ValidationError") } : error(joined(texts));
    if (code === 429) r.headers = headerRefs([...RATE_LIMIT_HEADERS, "Retry-After"]);
    responses[code] = r;
  }
  if (!responses["503"]) {
    const texts = [...(errors.get(503) ?? []), "The database cannot be reached; retry after `Retry-After` seconds"];
    responses["503"] = { ...error(joined(texts)), headers: headerRefs(["Retry-After"]) };
  }
  // Every answer given after the request was counted carries the bucket's headers: with credentials, every answer
  // (refused credentials count against the client's address); without, every one after the operation's own count.
  if (buckets.length)
    for (const [code, r] of Object.entries(responses))
      if (/^[234]/.test(code)) r.headers = { ...headerRefs(RATE_LIMIT_HEADERS), ...r.headers };
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

/** Moves input fields a body request reads from its query string out of the body and into query parameters. */
function queryParameters(op: Operation, fields: readonly string[], where: string) {
  const body = op.requestBody?.content["application/json"]?.schema;
  for (const name of fields) {
    const schema = body?.properties?.[name];
    if (!body?.properties || !schema)
      throw new Error(`OpenAPI: ${where} declares query field ${name}, not in its input`);
    delete body.properties[name];
    (op.parameters ??= []).push({ name, in: "query", required: body.required?.includes(name) ?? false, schema });
    body.required = body.required?.filter((n) => n !== name);
  }
  if (body && !Object.keys(body.properties ?? {}).length) delete op.requestBody;
}

/** Integers say their size (int32 when their bounds fit, else int64), so clients pick a type that holds them. */
function integerFormats(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(integerFormats);
  if (!node || typeof node !== "object") return;
  const o = node as Json;
  if (o.type === "integer" && o.format === undefined) {
    const fits = (v: unknown) => typeof v === "number" && Math.abs(v) <= 2 ** 31 - 1;
    o.format = fits(o.minimum) && fits(o.maximum) ? "int32" : "int64";
  }
  Object.values(o).forEach(integerFormats);
}

/** Drops component schemas nothing refers to (the generator registers error shapes this document does not use). */
function pruneSchemas(doc: { components: { schemas?: Json } }) {
  const schemas = doc.components.schemas ?? {};
  const refs = (node: unknown) =>
    [...JSON.stringify(node ?? null).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
  const queue = refs({ ...doc, components: { ...doc.components, schemas: {} } });
  const used = new Set<string>();
  for (let name = queue.pop(); name !== undefined; name = queue.pop()) {
    if (used.has(name)) continue;
    used.add(name);
    queue.push(...refs(schemas[name]));
  }
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

function build() {
  const doc = generateOpenApiDocument(appRouter, {
    title: "Watch API",
    version: "1.0.0",
    baseUrl: "/",
    description:
      "Watches (called *tasks* in paths and payloads) are checked by an AI agent with grounded web search; " +
      "you are notified by email, signed webhook or chat when the condition is met. Authenticate with " +
      '`Authorization: Bearer <API key or Clerk session token>`. Errors are `{"detail": string}`, ' +
      "validation errors 422 with a list of `{type, loc, msg, input}`. Every operation is rate limited: with " +
      "credentials per account (reads and writes apart), without per client address; answers send " +
      "`X-RateLimit-Limit`/`-Remaining`/`-Reset` and a 429 also `Retry-After`; each 429 says its limits.",
    securitySchemes: SECURITY_SCHEMES,
    paths: endpointPaths(),
    defs: { Error: ErrorSchema, ValidationError: ValidationErrorSchema },
  }) as unknown as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas?: Json; headers?: Json };
    servers?: unknown[];
    tags?: unknown[];
  };
  doc.servers = [
    { url: "/", description: "The server that serves this document (production, or a local development server)" },
  ].map((s) => ({ ...s, "x-internal": false }));
  doc.tags = TAGS.map(([name, description]) => ({ name, description }));
  doc.components.headers = HEADERS;

  const facts = operationFacts();
  for (const [path, item] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      const f = facts.get(`${method} ${path}`);
      if (!f) throw new Error(`OpenAPI: no declaration for ${where}`);
      if (f.operational) {
        op.responses = operationalResponses(f, op.responses["200"]!);
        op.security = SECURITY[f.access];
        continue;
      }
      if (f.query) queryParameters(op, f.query, where);
      if (f.conditional) (op.parameters ??= []).push(IF_NONE_MATCH);
      const buckets = bucketsOf(f, f.type);
      const hasInput = !!op.requestBody || !!op.parameters?.some((p) => p.in !== "header");
      op.responses = responsesOf(f, op.responses["200"]!, hasInput, buckets);
      op.security = SECURITY[f.access];
      if (buckets.length)
        op["x-rate-limit"] = buckets.map((b) => ({
          bucket: b,
          limit: limitOf(b),
          window_seconds: windowSeconds(),
          per: BUCKETS[b].per,
        }));
    }
  integerFormats(doc.paths);
  integerFormats(doc.components.schemas);
  pruneSchemas(doc);
  return doc;
}

/** Built once per start: it states the configured limits. */
let cached: ReturnType<typeof build> | undefined;
let cachedJson: string | undefined;
forgetOnStop(() => {
  cached = undefined;
  cachedJson = undefined;
});
export const openApiDocument = () => (cached ??= build());
/** The document as served (GET /api/v1/openapi.json), serialised once per start. */
export const openApiJson = () => (cachedJson ??= JSON.stringify(openApiDocument()));
