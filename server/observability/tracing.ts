/**
 * Traces over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT, with the OpenTelemetry Node SDK (which also reads the standard
 * OTEL_* variables: headers, service name, resource attributes, sampler). instrumentation.ts loads this module only
 * when the endpoint is set, before anything opens the database: without it, nothing of OpenTelemetry is loaded and
 * nothing costs. What is traced: each request (the front's span, scripts/front.mjs, with Next.js's own spans under
 * it), each run (the durable engine's workflow and step spans: claim, agent, record, each delivery), the model calls
 * through the AI SDK's telemetry (with token counts; prompts and answers are not recorded), outgoing HTTP (search,
 * page reads, webhooks, email) and database statements made for a request or a run.
 */
import { NodeSDK } from "@opentelemetry/sdk-node";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { PgInstrumentation } from "@opentelemetry/instrumentation-pg";
import { UndiciInstrumentation } from "@opentelemetry/instrumentation-undici";

const g = globalThis as unknown as { __watchTracing?: NodeSDK };

export function startTracing() {
  if (g.__watchTracing) return;
  const sdk = new NodeSDK({
    serviceName: process.env.OTEL_SERVICE_NAME || "watch",
    traceExporter: new OTLPTraceExporter(),
    // Only statements and calls made for a request or a run: the engine's own polling would otherwise be most spans.
    instrumentations: [
      new PgInstrumentation({ requireParentSpan: true }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
    ],
  });
  sdk.start();
  g.__watchTracing = sdk;
}

/** Sends the spans still buffered (at shutdown). */
export async function stopTracing() {
  await g.__watchTracing?.shutdown();
}
