/**
 * Traces over OTLP to OTEL_EXPORTER_OTLP_ENDPOINT, with the OpenTelemetry Node SDK, which also reads the standard
 * OTEL_* variables: headers, service name, resource attributes, sampler, batch sizes, and the protocol (http/json
 * here by default; http/protobuf or grpc through OTEL_EXPORTER_OTLP_PROTOCOL). instrumentation.ts loads this module only
 * when the endpoint is set, before anything opens the database: without it, nothing of OpenTelemetry is loaded and
 * nothing costs.
 *
 * What is traced: each request (the front's span, scripts/front.mjs), each run (the durable engine's workflow and step
 * spans: claim, agent, record, each delivery), the model calls through the AI SDK's telemetry (with token counts;
 * prompts and answers are not recorded), outgoing HTTP (search, page reads, webhooks, email) and, as the database
 * time, one span per statement made for a request or a run (the statement's text, never its values).
 *
 * What spans never carry: secrets and user text. An outgoing request records its origin only (`url.full` is
 * `https://host:port`; no path, no query): a chat channel's credential is its URL's path (a Telegram bot token, a
 * Slack or Discord webhook's secret path) or query (a Teams `sig`), and a search's query string is the watch's own
 * question. A statement records its text with placeholders, never the values bound to them; the model's prompt and
 * answer are left out (server/agent).
 *
 * Left out because they cost more than they tell, at every request: Next.js's own spans (route resolution, module
 * loading, "GET /api/[...path]": the request span already names the route template and times the whole answer), the
 * pool's connection checkouts (a wait for a connection shows as the gap before the statement), and OTLP metrics
 * (the product's metrics are Prometheus, GET /metrics; OTEL_METRICS_EXPORTER turns them on).
 */
import {
  context,
  trace,
  INVALID_SPAN_CONTEXT,
  type Context,
  type ProxyTracerProvider,
  type Span,
  type Tracer,
  type TracerProvider,
} from "@opentelemetry/api";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";

const g = globalThis as unknown as { __watchTracing?: NodeSDK };

export function startTracing() {
  if (g.__watchTracing) return;
  // OTLP/HTTP with JSON unless a protocol is set: the SDK's protobuf writer encodes every string in JavaScript, a
  // character at a time, and cost four times the CPU of its JSON (native JSON.stringify) for fewer spans.
  process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??= process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "http/json";
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || "watch",
    // No traceExporter: the SDK builds it from OTEL_TRACES_EXPORTER and the OTLP protocol variables.
    ...(process.env.OTEL_METRICS_EXPORTER ? {} : { metricReaders: [] }),
    // Only statements and calls made for a request or a run: the engine's own polling would otherwise be most spans.
    instrumentations: [
      new PgInstrumentation({ requireParentSpan: true, ignoreConnectSpans: true }),
      new UndiciInstrumentation({ requireParentforSpans: true, startSpanHook: originOnly }),
    ],
  });
  sdk.start();
  const global = trace.getTracerProvider() as Partial<ProxyTracerProvider>;
  if (global.setDelegate && global.getDelegate) global.setDelegate(withoutNextSpans(global.getDelegate()));
  g.__watchTracing = sdk;
}

/** An outgoing request's attributes without its path and query (undefined values are not recorded). */
const originOnly = (request: { origin: string }) => ({
  "url.full": new URL(request.origin).origin,
  "url.path": undefined,
  "url.query": undefined,
});

/**
 * The SDK's tracers, except Next.js's: its spans are not started, and what runs inside them stays a child of the
 * span around them (the request's), so the database and HTTP spans keep their place in the trace.
 *
 * The provider also says it is the API's no-op one by its class name, which is how Next.js tells whether tracing is on
 * when the active span is not recording (the request's, as the application sees it: scripts/front.mjs): Next.js then
 * skips the context changes and attribute bookkeeping it does around each of its spans (bench:operate's profile).
 * Should Next.js change that test, its spans are still dropped by the tracer above.
 */
function withoutNextSpans(provider: TracerProvider): TracerProvider {
  const around = (ctx = context.active()) => trace.wrapSpanContext(trace.getSpanContext(ctx) ?? INVALID_SPAN_CONTEXT);
  const next = {
    startSpan: (_name: string, _options?: unknown, ctx?: Context) => around(ctx),
    // (name, fn) | (name, options, fn) | (name, options, context, fn): the callback is always last.
    startActiveSpan: (...args: unknown[]) => {
      const fn = args.at(-1) as (span: Span) => unknown;
      if (args.length < 4) return fn(around());
      const ctx = args[2] as Context;
      return context.with(ctx, () => fn(around(ctx)));
    },
  } as Tracer;
  const Provider = class implements TracerProvider {
    getTracer(name: string, version?: string, options?: { schemaUrl?: string }) {
      return name === "next.js" ? next : provider.getTracer(name, version, options);
    }
  };
  // Named after minification too (a class's own name would be mangled away).
  Object.defineProperty(Provider, "name", { value: "NoopTracerProvider" });
  return new Provider();
}

/** Sends the spans still buffered (at shutdown). */
export async function stopTracing() {
  await g.__watchTracing?.shutdown();
}
