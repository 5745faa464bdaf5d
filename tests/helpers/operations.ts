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
