/**
 * The public surface: the root exports what an application needs and nothing internal; the subpaths
 * export the layers but not the plumbing; and no exported signature names a Bun or Node global type
 * (a Node TypeScript project compiles against these declarations).
 */
import { describe, expect, test } from "bun:test";
import { dirname, resolve } from "node:path";
import ts from "typescript";

const SRC = import.meta.dir;
const SUBPATHS = ["model", "wire", "transport", "mcp", "loop", "triggers", "supervisor", "serve", "agent", "config", "store"];
const INTERNAL = [
  "setLongTimeout",
  "ChildAttempt",
  "CONTROL_FD",
  "parseStartParams",
  "ControlChannel",
  "openInheritedControlIO",
  "reconnectBackoff",
  "reconnectDelay",
  "restartDelay",
  "upstreamError",
  "transportFor",
];

describe("exports", () => {
  test("the root: the agent, runs, triggers, config, errors, MCP classes, subagents, telemetry", async () => {
    const names = Object.keys(await import("./index.ts")).sort();
    expect(names).toEqual([
      "ALREADY_DONE",
      "AgentTriggers",
      "AgentdError",
      "ConfigSchema",
      "DEFAULT_CONFIG_FILE",
      "ErrorCode",
      "FileJobStore",
      "GIVE_UP",
      "INTERVAL_TRIGGER_ID",
      "ManagedMcpClient",
      "McpClient",
      "McpError",
      "McpServer",
      "McpServerConfigSchema",
      "MemoryJobStore",
      "MemoryTransport",
      "RUN_ID_META_KEY",
      "StdioChildTransport",
      "StdioServerTransport",
      "StreamableHttpClientTransport",
      "Supervisor",
      "agentOptionsFromConfig",
      "capabilityConfigFrom",
      "checkCronEngine",
      "connectManagedServer",
      "connectServer",
      "createAgent",
      "createAgentFromConfig",
      "createLogger",
      "createStreamableHttpServer",
      "cronTriggerId",
      "durationProblem",
      "formatDuration",
      "httpServeOptionsFrom",
      "isAlreadyDone",
      "jsonLinesLogger",
      "limitsFromConfig",
      "loadTelemetry",
      "memoryLogger",
      "metricsServeOptionsFrom",
      "modelFromConfig",
      "newRunId",
      "nullLogger",
      "parseConfig",
      "parseDuration",
      "parseListen",
      "readConfigFile",
      "resolveConfig",
      "runStatusOf",
      "runSubagentChild",
      "scrubSecrets",
      "subscriptionTriggerId",
      "supervisorFromConfig",
      "tool",
      "triggerSpecsFromConfig",
      "validateTriggerSpec",
    ]);
  });

  test.each(["", ...SUBPATHS.filter((s) => s !== "model")])("no plumbing from '%s'", async (sub) => {
    const names = Object.keys(await import(sub ? `./${sub}/index.ts` : "./index.ts"));
    expect(names.filter((n) => INTERNAL.includes(n))).toEqual([]);
  });
});

describe("declarations", () => {
  test("no exported signature of any entry names a Bun or Node global type", () => {
    const entries = [resolve(SRC, "index.ts"), ...SUBPATHS.map((s) => resolve(SRC, s, "index.ts"))];
    const out = new Map<string, string>();
    const program = ts.createProgram(entries, {
      declaration: true,
      emitDeclarationOnly: true,
      allowImportingTsExtensions: true,
      rewriteRelativeImportExtensions: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: ["bun"],
      skipLibCheck: true,
      strict: true,
      outDir: "/virtual",
      rootDir: SRC,
    });
    program.emit(undefined, (file, text) => out.set(file, text));
    // Follow imports from the entries' declarations: what a consumer's compiler reads.
    const seen = new Set<string>();
    const offending: string[] = [];
    const visit = (file: string) => {
      const text = out.get(file);
      if (text === undefined || seen.has(file)) return;
      seen.add(file);
      for (const line of text.split("\n"))
        if (/\bBun\.|\bNodeJS\./.test(line) && !line.trim().startsWith("*")) offending.push(`${file}: ${line.trim()}`);
      for (const m of text.matchAll(/(?:from\s+|import\()"(\.[^"]+)"/g))
        visit(resolve(dirname(file), m[1]!.replace(/\.(ts|js)$/, ".d.ts")));
    };
    for (const e of entries) visit(resolve("/virtual", e.slice(SRC.length + 1).replace(/\.ts$/, ".d.ts")));
    expect(seen.size).toBeGreaterThan(50);
    expect(offending).toEqual([]);
    // A whole-SDK declaration emit: about 40 s on a quiet 2-core machine, far more when it is loaded.
  }, 300_000);
});
