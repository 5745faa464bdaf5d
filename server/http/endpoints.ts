/**
 * The API operations served by route handlers of their own rather than through tRPC, because they answer XML, a feed
 * or an image instead of JSON. Each declares the wire facts a procedure declares in its meta (server/api/wire.ts);
 * its handler applies them (server/http/route.ts) and the OpenAPI document documents them.
 */
import { z } from "zod";
import type { WireMeta } from "../api/wire";
import { Id } from "../tasks/schemas";

export type Endpoint = Pick<WireMeta, "rateLimit" | "conditional"> & {
  method: "GET";
  path: `/${string}`;
  operationId: string;
  summary: string;
  tags: string[];
  /** The path parameters, validated before the handler runs. */
  params: z.ZodObject;
  /** The media type of a successful answer, and what it is. */
  produces: { type: string; description: string };
  errorResponses?: Record<number, string>;
};

const ByTaskId = z.object({ id: Id });

export const ENDPOINTS = {
  rss: {
    method: "GET",
    path: "/api/v1/public/tasks/id/{id}/rss",
    operationId: "public-taskRss",
    tags: ["public"],
    summary:
      "RSS 2.0 feed of a public watch's findings and retractions (last 50 findings, newest first); shares its rate limit with the JSON Feed",
    params: ByTaskId,
    rateLimit: "feeds",
    conditional: true,
    produces: { type: "application/rss+xml", description: "RSS 2.0" },
    errorResponses: { 404: "Task not found" },
  },
  jsonFeed: {
    method: "GET",
    path: "/api/v1/public/tasks/id/{id}/feed.json",
    operationId: "public-taskJsonFeed",
    tags: ["public"],
    summary: "JSON Feed 1.1 with the RSS feed's items; shares its rate limit with the RSS feed",
    params: ByTaskId,
    rateLimit: "feeds",
    conditional: true,
    produces: { type: "application/feed+json", description: "JSON Feed 1.1" },
    errorResponses: { 404: "Task not found" },
  },
  badge: {
    method: "GET",
    path: "/api/v1/public/tasks/id/{id}/badge.svg",
    operationId: "public-taskBadge",
    tags: ["public"],
    summary: "SVG badge of a public watch's verdict (`watch | met · 2 Nov 2026`)",
    params: ByTaskId,
    rateLimit: "badge",
    conditional: true,
    produces: { type: "image/svg+xml", description: "SVG image" },
    errorResponses: { 404: "Task not found" },
  },
} as const satisfies Record<string, Endpoint>;
