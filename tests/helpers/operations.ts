/** Every operation of a served OpenAPI document, for the suites that send bad input to each. */
export type Operation = {
  method: string;
  path: string;
  params: { name: string; in: string }[];
  body?: Record<string, unknown>;
};

type Document = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; in: string }[];
        requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
      }
    >
  >;
};

export function operationsOf(document: unknown): Operation[] {
  return Object.entries((document as Document).paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      params: op.parameters ?? [],
      body: op.requestBody?.content["application/json"]?.schema.properties,
    })),
  );
}

/** Path ids every operation with an `{id}` must refuse with a 4xx: malformed, nil, encoded tricks, overlong, emoji. */
export const BAD_PATH_IDS = [
  "not-a-uuid",
  "00000000-0000-0000-0000-000000000000",
  "%00",
  "..%2F..%2Fetc",
  "x".repeat(300),
  "🦄",
];
