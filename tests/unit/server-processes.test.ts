/** SERVER_PROCESSES: how many processes `npm start` serves from, refused at start-up with the reason when it cannot. */
import os from "node:os";
import { describe, expect, it } from "vitest";
import { loadEnv } from "@/server/env";
import { serverProcesses } from "@/server/processes.mjs";

const postgres = "postgresql://postgres@127.0.0.1:5432/watch";

describe("SERVER_PROCESSES", () => {
  it("is 1 unless set, a count, or one per core with auto", () => {
    expect(serverProcesses(undefined, undefined)).toBe(1);
    expect(serverProcesses("", undefined)).toBe(1);
    expect(serverProcesses("1", undefined)).toBe(1);
    expect(serverProcesses("4", postgres)).toBe(4);
    expect(serverProcesses(" 2 ", postgres)).toBe(2);
    expect(serverProcesses("auto", postgres)).toBe(os.availableParallelism());
    expect(loadEnv({ SERVER_PROCESSES: "2", DATABASE_URL: postgres }).SERVER_PROCESSES).toBe("2");
  });

  it.each(["0", "-1", "1.5", "33", "two", "0x2", "2 processes"])("refuses %j", (value) => {
    expect(() => loadEnv({ SERVER_PROCESSES: value, DATABASE_URL: postgres })).toThrow(
      /Invalid configuration:\n {2}SERVER_PROCESSES: expected a whole number from 1 to 32, or auto/,
    );
  });

  it("refuses more than one process on the embedded database", () => {
    expect(() => loadEnv({ SERVER_PROCESSES: "2" })).toThrow(
      /SERVER_PROCESSES: more than one process needs PostgreSQL \(DATABASE_URL\); the embedded database serves one/,
    );
  });
});
