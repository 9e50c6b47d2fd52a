/**
 * The layering, kept by a check rather than by care: every static import of production code (not tests, not
 * `__fixtures__`) in every package is an edge between two folders, and each edge must be in the table below.
 * Reading order of the SDK: wire → transport → mcp (protocol, then client and server) → loop → triggers,
 * supervisor, serve → a2a server → agent. `model/` is the model interface (no runtime, no agent), `config/`
 * only reads and checks the config shape, `_internal/` and the root files (`log.ts`, `index.ts`) are shared.
 * A new edge is a design decision: add it here, in the same change, with the reason in the review.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { posix, resolve } from "node:path";
import { Glob } from "bun";

const PACKAGES = resolve(import.meta.dir, "../..");

/** What every folder of the agent may import below it: the console answers the operator channel's errors (A2aError) as HTTP statuses (a2a/shared). */
const AGENT_LOWER = [
  "(root)",
  "_internal",
  "wire",
  "transport",
  "config",
  "mcp",
  "mcp/protocol",
  "mcp/client",
  "mcp/server",
  "store",
  "a2a/client",
  "a2a/server",
  "model",
  "loop",
  "tool",
  "telemetry",
  "triggers",
  "supervisor",
  "serve",
  "a2a/shared",
] as const;

/** SDK folders (a2a, mcp and agent by their subfolders) and what each may import besides itself. */
const SDK_EDGES: Record<string, readonly string[]> = {
  "(root)": ["_internal", "wire", "transport", "mcp", "model", "loop", "tool", "triggers", "supervisor", "telemetry", "config", "agent"],
  _internal: ["(root)"],
  wire: [],
  config: ["(root)", "wire"],
  transport: ["(root)", "_internal", "wire"],
  "mcp/protocol": ["(root)", "_internal", "wire", "transport"],
  "mcp/client": ["(root)", "_internal", "wire", "transport", "mcp", "mcp/protocol"],
  "mcp/server": ["(root)", "_internal", "wire", "transport", "mcp", "mcp/protocol"],
  mcp: ["wire", "mcp/protocol", "mcp/client", "mcp/server"],
  store: ["(root)", "wire", "transport", "mcp/client", "mcp/server"],
  "a2a/shared": [],
  "a2a/client": ["(root)", "_internal", "wire", "transport", "a2a/shared", "mcp/protocol", "model", "loop"],
  model: ["(root)", "_internal", "wire", "loop"],
  loop: ["(root)", "_internal", "wire", "model"],
  tool: ["(root)", "_internal", "wire", "mcp/protocol", "mcp/server", "loop"],
  telemetry: ["(root)", "wire", "loop"],
  triggers: ["(root)", "_internal", "wire", "config", "store", "model", "loop"],
  supervisor: ["(root)", "_internal", "wire", "transport", "config", "mcp/server", "model", "loop"],
  // _internal: withoutUndefined, for the task table's options merged over their defaults.
  serve: ["(root)", "_internal", "wire", "transport", "mcp", "mcp/protocol", "mcp/client", "mcp/server", "model", "loop"],
  "a2a/server": ["(root)", "_internal", "wire", "transport", "a2a/shared", "mcp/protocol", "mcp/client", "loop", "serve"],
  // The agent's rooms (agent/<room>/) and its top (create-agent.ts, index.ts, the options and types). Each
  // may reach every lower layer: AGENT_LOWER. The edges between rooms are listed as they stand.
  agent: [
    ...AGENT_LOWER,
    "agent/checkpoint",
    "agent/connections",
    "agent/conversations",
    "agent/from-config",
    "agent/live",
    "agent/run",
    "agent/sampling",
    "agent/serving",
    "agent/tools",
  ],
  "agent/sampling": [...AGENT_LOWER],
  "agent/checkpoint": [...AGENT_LOWER],
  "agent/console": [...AGENT_LOWER],
  "agent/connections": [...AGENT_LOWER, "agent", "agent/sampling"],
  "agent/tools": [...AGENT_LOWER, "agent", "agent/connections", "agent/sampling"],
  "agent/conversations": [...AGENT_LOWER],
  "agent/run": [...AGENT_LOWER, "agent", "agent/connections", "agent/conversations", "agent/live", "agent/serving", "agent/tools"],
  "agent/live": [...AGENT_LOWER, "agent", "agent/checkpoint", "agent/serving"],
  "agent/serving": [...AGENT_LOWER, "agent", "agent/checkpoint", "agent/console", "agent/from-config", "agent/live", "agent/sampling"],
  "agent/from-config": [
    ...AGENT_LOWER,
    "agent",
    "agent/checkpoint",
    "agent/connections",
    "agent/conversations",
    "agent/live",
    "agent/sampling",
    "agent/serving",
  ],
};

/** Which `@agentd/*` entry points each package's production code may import. */
const PACKAGE_EDGES: Record<string, readonly string[]> = {
  // The OpenTelemetry backend, imported dynamically when OTEL_* asks for it (an optional peer).
  sdk: ["@agentd/otel"],
  otel: ["@agentd/sdk", "@agentd/sdk/loop"],
  adapters: ["@agentd/sdk/model"],
  testkit: ["@agentd/sdk", "@agentd/sdk/wire", "@agentd/sdk/transport", "@agentd/sdk/mcp"],
  cli: ["@agentd/sdk", "@agentd/sdk/*", "@agentd/adapters", "@agentd/testkit"],
};

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"|\bimport\(\s*"([^"]+)"\s*\)/g;

function unitOf(pathInSrc: string): string {
  const parts = pathInSrc.split("/");
  if (parts.length === 1) return "(root)";
  if ((parts[0] === "a2a" || parts[0] === "mcp" || parts[0] === "agent") && parts.length > 2) return `${parts[0]}/${parts[1]}`;
  return parts[0]!;
}

function productionFiles(pkg: string): string[] {
  return [...new Glob("**/*.ts").scanSync(`${PACKAGES}/${pkg}/src`)].filter((f) => !f.endsWith(".test.ts") && !f.includes("__fixtures__"));
}

function importsOf(pkg: string, file: string): string[] {
  const text = readFileSync(`${PACKAGES}/${pkg}/src/${file}`, "utf8");
  return [...text.matchAll(IMPORT)].map((m) => (m[1] ?? m[2])!);
}

test("every folder-to-folder import in the SDK is an allowed edge", () => {
  const offending: string[] = [];
  for (const file of productionFiles("sdk")) {
    const from = unitOf(file);
    expect(SDK_EDGES[from], `folder ${from} is missing from the table`).toBeDefined();
    for (const spec of importsOf("sdk", file)) {
      if (!spec.startsWith(".")) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), spec));
      if (target.startsWith("..")) offending.push(`${file} → ${spec} (leaves the package)`);
      const to = unitOf(target);
      if (to !== from && !SDK_EDGES[from]!.includes(to)) offending.push(`${file} → ${spec} (${from} → ${to})`);
    }
  }
  expect(offending).toEqual([]);
});

test("packages import each other only through allowed entry points, never by relative path", () => {
  const offending: string[] = [];
  for (const pkg of Object.keys(PACKAGE_EDGES)) {
    const allowed = PACKAGE_EDGES[pkg]!;
    for (const file of productionFiles(pkg)) {
      for (const spec of importsOf(pkg, file)) {
        if (spec.startsWith(".")) {
          const target = posix.normalize(posix.join(`${pkg}/src`, posix.dirname(file), spec));
          if (!target.startsWith(`${pkg}/`)) offending.push(`${pkg}/src/${file} → ${spec}`);
          continue;
        }
        if (!spec.startsWith("@agentd/")) continue;
        const ok = allowed.some((a) => a === spec || (a.endsWith("/*") && spec.startsWith(a.slice(0, -1))));
        if (!ok) offending.push(`${pkg}/src/${file} → ${spec}`);
      }
    }
  }
  expect(offending).toEqual([]);
});

test("the system tests in e2e/ reach the packages through their names, never by relative import into src/", () => {
  const E2E = resolve(PACKAGES, "../e2e");
  const offending: string[] = [];
  for (const file of new Glob("**/*.ts").scanSync(E2E)) {
    const text = readFileSync(`${E2E}/${file}`, "utf8");
    for (const m of text.matchAll(IMPORT)) {
      const spec = (m[1] ?? m[2])!;
      if (!spec.startsWith(".")) continue;
      const target = posix.normalize(posix.join("e2e", posix.dirname(file), spec));
      if (!target.startsWith("e2e/")) offending.push(`e2e/${file} → ${spec}`);
    }
  }
  expect(offending).toEqual([]);
});

test("tests and their fixtures reach other packages through their names, never by relative path into src/", () => {
  const offending: string[] = [];
  for (const pkg of [...Object.keys(PACKAGE_EDGES), "test-support"]) {
    for (const file of new Glob("**/*.ts").scanSync(`${PACKAGES}/${pkg}/src`)) {
      for (const spec of importsOf(pkg, file)) {
        if (!spec.startsWith(".")) continue;
        const target = posix.normalize(posix.join(`${pkg}/src`, posix.dirname(file), spec));
        if (!target.startsWith(`${pkg}/`)) offending.push(`${pkg}/src/${file} → ${spec}`);
      }
    }
  }
  expect(offending).toEqual([]);
});

test("only tests import the shared test support (@agentd/test-support never ships)", () => {
  const offending: string[] = [];
  for (const pkg of Object.keys(PACKAGE_EDGES))
    for (const file of productionFiles(pkg))
      if (importsOf(pkg, file).some((s) => s.startsWith("@agentd/test-support"))) offending.push(`${pkg}/src/${file}`);
  expect(offending).toEqual([]);
});

test("the check sees a forbidden edge (the table is not vacuous)", () => {
  // wire is the bottom layer: nothing above it may be reached from it.
  expect(SDK_EDGES.wire).toEqual([]);
  expect(unitOf("mcp/client/client.ts")).toBe("mcp/client");
  expect(unitOf("agent/create-agent.ts")).toBe("agent");
  expect(SDK_EDGES.loop!.includes("agent")).toBe(false);
  expect(productionFiles("sdk").length).toBeGreaterThan(100);
});
