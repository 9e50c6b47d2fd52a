/** Which command lines prelaunch the demo's server, and the logger its records wait in until bound. */
import { describe, expect, test } from "bun:test";
import { memoryLogger } from "@agentd/sdk/telemetry";
import { lateLogger } from "./late-logger.ts";
import { runsScriptedDemo } from "./prelaunch-server.ts";

describe("the scripted demo is recognised before the CLI loads", () => {
  test.each([
    [["demo"], {}, true],
    [["demo", "Where is order A-1042?", "--json"], {}, true],
    [["demo"], { AGENT_INTELLIGENCE: "" }, true],
    [["demo", "--intelligence", "http://127.0.0.1:1/v1"], {}, false],
    [["demo", "--intelligence=http://127.0.0.1:1/v1"], {}, false],
    [["demo"], { AGENT_INTELLIGENCE: "http://127.0.0.1:1/v1" }, false],
    [["demo", "--help"], {}, false],
    [["demo", "-h"], {}, false],
    [["run", "demo"], {}, false],
    [[], {}, false],
  ] as const)("%j with %j: %p", (argv, env, expected) => {
    expect(runsScriptedDemo(argv, env)).toBe(expected);
  });
});

describe("lateLogger", () => {
  test("queues records (with child fields) until bound, replays them in order, then forwards", () => {
    const late = lateLogger();
    const target = memoryLogger();
    late.child({ server: "demo" }).info("mcp.stderr", { line: "starting" });
    late.warn("early");
    expect(target.records).toEqual([]);
    late.bind(target);
    late.child({ server: "demo" }).child({ pid: 7 }).debug("mcp.exit", { code: 0 });
    expect(target.records.map(({ ts: _ts, ...rest }) => rest)).toEqual([
      { level: "info", event: "mcp.stderr", server: "demo", line: "starting" },
      { level: "warn", event: "early" },
      { level: "debug", event: "mcp.exit", server: "demo", pid: 7, code: 0 },
    ]);
  });
});
