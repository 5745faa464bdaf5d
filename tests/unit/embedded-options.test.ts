/** EMBEDDED_SHARED_BUFFERS: a size PostgreSQL accepts, refused at start-up with the reason otherwise. */
import { describe, expect, it } from "vitest";
import { loadEnv } from "@/server/env";

describe("EMBEDDED_SHARED_BUFFERS", () => {
  it("defaults to PostgreSQL's 128MB and takes a size in MB or GB", () => {
    expect(loadEnv({}).EMBEDDED_SHARED_BUFFERS).toBe("128MB");
    expect(loadEnv({ EMBEDDED_SHARED_BUFFERS: "16MB" }).EMBEDDED_SHARED_BUFFERS).toBe("16MB");
    expect(loadEnv({ EMBEDDED_SHARED_BUFFERS: "1GB" }).EMBEDDED_SHARED_BUFFERS).toBe("1GB");
  });

  it.each(["64kB", "0MB", "16", "16 MB", "16MB; DROP", "-c fsync=off"])("refuses %j with the reason", (value) => {
    expect(() => loadEnv({ EMBEDDED_SHARED_BUFFERS: value })).toThrow(
      /Invalid configuration:\n {2}EMBEDDED_SHARED_BUFFERS: a size in MB or GB, such as "128MB"/,
    );
  });
});
