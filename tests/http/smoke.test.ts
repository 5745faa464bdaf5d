import { describe, expect, it } from "vitest";
import { call, createTask, newApiKeyUser, newUser } from "../helpers/api";

describe("smoke", () => {
  it("serves health and the OpenAPI document", async () => {
    const health = await call("GET", "/api/health");
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: "ok", database: "ok", scheduler: "ok" });
    const doc = await call("GET", "/api/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\.1/);
    expect(Object.keys(doc.body.paths)).toContain("/api/v1/tasks");
  });

  it("creates and lists a watch with a session token and with an API key", async () => {
    const user = await newUser();
    const task = await createTask(user.token);
    expect(task).toMatchObject({ name: "New Monitor", state: "active", immediate_execution_error: null });
    const keyUser = await newApiKeyUser();
    await createTask(keyUser.apiKey, { name: "mine" });
    const list = await call("GET", "/api/v1/tasks", { auth: keyUser.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.map((t: { name: string }) => t.name)).toEqual(["mine"]);
  });
});
