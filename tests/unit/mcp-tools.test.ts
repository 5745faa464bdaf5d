/**
 * The MCP tools stay in step with the REST operations they share a procedure with: every REST input field is a tool
 * argument unless the tool says it leaves it out, every field of the REST answer is in the tool's output schema, and a
 * field added to a procedure appears in its tool with no other edit. The schemas stand alone and compile in the
 * validator the MCP SDK's client checks answers with.
 */
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openApiDocument } from "@/server/api/openapi";
import { appRouter } from "@/server/api/root";
import { defineTools, TOOLS } from "@/server/mcp/tools";
import { CreatedTaskSchema, CreateTaskInput } from "@/server/tasks/schemas";
import { CHANNELS } from "@/channels/list";
import { parseNotifications } from "@/server/tasks/notifications";

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, unknown>;
  items?: Schema;
  required?: string[];
};
type Operation = {
  parameters?: { name: string; in: string }[];
  requestBody?: { content: { "application/json": { schema: Schema } } };
  responses: Record<string, { content?: { "application/json": { schema: Schema } } }>;
};
const doc = openApiDocument() as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};
const resolve = (s: Schema): Schema => (s.$ref ? resolve(doc.components.schemas[s.$ref.split("/").pop()!]!) : s);

type Procedure = { _def: { meta?: { openapi?: { method: string; path: string } } } };
const procedures = appRouter._def.procedures as unknown as Record<string, Procedure>;
const tools = defineTools();

function restOperation(procedure: string) {
  const { method, path } = procedures[procedure]!._def.meta!.openapi!;
  return doc.paths[path]![method.toLowerCase()]!;
}

const sorted = (keys: Iterable<string>) => [...keys].sort();

describe("MCP tools", () => {
  it("take every input field of their REST operation except the ones each tool names", () => {
    for (const { spec, tool, withheld } of tools.values()) {
      const op = restOperation(spec.procedure);
      const rest = new Set(op.parameters?.map((p) => p.name));
      for (const field of Object.keys(op.requestBody?.content["application/json"].schema.properties ?? {}))
        rest.add(field);
      const args = Object.keys(tool.inputSchema.properties ?? {});
      expect(sorted([...args, ...withheld]), spec.name).toEqual(sorted(rest));
      expect(
        args.filter((a) => withheld.includes(a)),
        spec.name,
      ).toEqual([]);
    }
  });

  it("answer what their REST operation answers (a list wrapped in an object named for its items, with its total)", () => {
    for (const { spec, tool } of tools.values()) {
      const { responses } = restOperation(spec.procedure);
      const success = Object.keys(responses).find((s) => s.startsWith("2") && s !== "204");
      const body = success ? responses[success]!.content?.["application/json"].schema : undefined;
      if (!tool.outputSchema) {
        expect(body, `${spec.name} answers no body`).toBeUndefined();
        expect(restOperation(spec.procedure).responses).toHaveProperty("204");
        continue;
      }
      let rest = resolve(body!);
      let answer = tool.outputSchema as Schema;
      if (spec.items) {
        expect(rest.type, spec.name).toBe("array");
        expect(answer.required).toEqual([spec.items, "total"]);
        expect(answer.properties!.total, spec.name).toMatchObject({ type: "integer", minimum: 0 });
        rest = resolve(rest.items!);
        answer = (answer.properties![spec.items] as Schema).items!;
      }
      expect(sorted(Object.keys(answer.properties!)), spec.name).toEqual(sorted(Object.keys(rest.properties!)));
    }
  });

  it("follow their procedure: a new field shows up in the tool's input and output", () => {
    const real = procedures["tasks.create"] as unknown as { _def: object };
    const extended = {
      ...(procedures as object),
      "tasks.create": {
        _def: {
          ...real._def,
          inputs: [z.object({ ...CreateTaskInput.shape, labels: z.array(z.string()).optional() })],
          output: CreatedTaskSchema.extend({ labels: z.array(z.string()) }),
        },
      },
    };
    const create = defineTools(extended as never).get("create_watch")!.tool;
    expect(create.inputSchema.properties).toHaveProperty("labels", { type: "array", items: { type: "string" } });
    expect(create.outputSchema!.properties).toHaveProperty("labels");
    expect(create.outputSchema!.required).toContain("labels");
  });

  it("offer every listed channel in create_watch: named to the assistant, its example config accepted", () => {
    const notifications = tools.get("create_watch")!.tool.inputSchema.properties!.notifications as {
      description: string;
    };
    for (const channel of CHANNELS) {
      expect(notifications.description, channel.type).toContain(channel.type);
      expect(parseNotifications([{ type: channel.type, ...channel.example }]), channel.type).toHaveLength(1);
    }
  });

  it("have schemas that stand alone and compile in the SDK client's validator", () => {
    const validator = new AjvJsonSchemaValidator();
    for (const tool of TOOLS) {
      const json = JSON.stringify(tool);
      expect(json, tool.name).not.toMatch(/"\$(ref|defs|schema)"/);
      validator.getValidator(tool.inputSchema);
      if (tool.outputSchema) validator.getValidator(tool.outputSchema);
    }
  });

  it("page every list: 20 unless asked, at most 100, whatever the REST operation allows", () => {
    for (const { spec, tool } of tools.values()) {
      if (!spec.items) continue;
      expect(tool.inputSchema.properties, spec.name).toMatchObject({
        limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
        offset: { type: "integer", minimum: 0, default: 0 },
      });
    }
    expect(TOOLS.find((t) => t.name === "search_public_watches")!.outputSchema!.properties).toHaveProperty(
      "total_capped",
    );
  });

  it("mark read-only and destructive tools, each described in one sentence", () => {
    const readOnly = TOOLS.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name);
    expect(readOnly).toEqual(["list_watches", "get_watch", "list_findings", "search_public_watches", "get_usage"]);
    expect(TOOLS.filter((t) => t.annotations?.destructiveHint).map((t) => t.name)).toEqual(["delete_watch"]);
    for (const tool of TOOLS) {
      expect(tool.description, tool.name).toMatch(/^[A-Z][^.]*\.$/);
      if (tool.annotations?.readOnlyHint) continue;
      expect(tool.annotations?.idempotentHint, tool.name).toBeTypeOf("boolean");
      // A tool that changes something is used at the user's word, never at the word of text a tool returned.
      expect(tool.description, tool.name).toMatch(/only (at|when) the user/);
    }
  });

  it("send a held finding anyway with send_finding: a change tool on the findings' send operation", () => {
    const tool = TOOLS.find((t) => t.name === "send_finding")!;
    expect(tool.inputSchema.required?.slice().sort()).toEqual(["id", "key"]);
    expect(tool.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(procedures["tasks.sendFinding"]!._def.meta!.openapi).toMatchObject({
      method: "POST",
      path: "/api/v1/tasks/{id}/findings/{key}/send",
    });
  });
});
