/**
 * A request's span, opened by the front (scripts/front.mjs) when tracing is on: its parent is the caller's
 * `traceparent` when one is sent, its name and `http.route` the route template once the answer is written, and the
 * application's own spans (Next.js, database, model and webhook calls) are its children. Loaded only when tracing is
 * on.
 */
import { context, propagation, trace, SpanKind, SpanStatusCode } from "@opentelemetry/api";

/** @param {import("node:http").IncomingMessage} req @param {string} requestId */
export function requestSpan(req, requestId) {
  const parent = propagation.extract(context.active(), req.headers);
  const span = trace.getTracer("watch").startSpan(
    req.method ?? "GET",
    {
      kind: SpanKind.SERVER,
      attributes: {
        "http.request.method": req.method ?? "GET",
        "url.path": (req.url ?? "/").split("?")[0],
        "watch.request_id": requestId,
      },
    },
    parent,
  );
  // What runs inside sees the span only as a parent (the same ids, not recording): Next.js would otherwise set its own
  // route ("/api/[...path]") on it, and do so after the front has ended it, where every attempt costs an Error and
  // its stack.
  const active = trace.setSpan(parent, trace.wrapSpanContext(span.spanContext()));
  return {
    /** @template T @param {() => T} fn @returns {T} */
    run: (fn) => context.with(active, fn),
    /** @param {string} route @param {number} status */
    end(route, status) {
      span.updateName(`${req.method} ${route}`);
      span.setAttribute("http.route", route);
      span.setAttribute("http.response.status_code", status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
