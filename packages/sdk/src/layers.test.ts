/**
 * The layering, kept by a check rather than by care: every static import of production code (not tests, not
 * `__fixtures__`) in every package is an edge between two folders, and each edge must be in the table below.
 * The layer order is {@link LAYER_ORDER}, the one source: every edge of the table points to an earlier layer,
 * and the `index.ts` header and docs/architecture.md's tree are checked to give the same order. `model/` is
 * the model interface (no runtime, no agent, below the loop), `config/` only reads and checks the config shape,
 * `_internal/`, `a2a/shared/` and the root files (`log.ts`, `index.ts`) are shared. A new edge is a design
 * decision: add it here, in the same change, with the reason in the review.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { posix, resolve } from "node:path";
import { Glob } from "bun";

const PACKAGES = resolve(import.meta.dir, "../..");

/**
 * The SDK's layers, lowest first: each imports only layers before it (`mcp` is its protocol, client and server;
 * `agent` its rooms). Shared by all: the root files, `_internal/`, `a2a/shared/`.
 */
const LAYER_ORDER = [
  "wire",
  "config",
  "transport",
  "mcp",
  "store",
  "model",
  "loop",
  "a2a client",
  "tool",
  "telemetry",
  "triggers",
  "supervisor",
  "serve",
  "a2a server",
  "agent",
] as const;

/** The layer of a unit of the table (undefined for the shared ones). */
function layerOf(unit: string): string | undefined {
  if (unit === "(root)" || unit === "_internal" || unit === "a2a/shared") return undefined;
  if (unit === "mcp" || unit.startsWith("mcp/")) return "mcp";
  if (unit === "agent" || unit.startsWith("agent/")) return "agent";
  if (unit.startsWith("a2a/")) return `a2a ${unit.slice(4)}`;
  return unit;
}

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
  // wire: the bounded body reader and the redirect policy fail with AgentdError, the one error class.
  _internal: ["(root)", "wire"],
  wire: [],
  config: ["(root)", "wire"],
  transport: ["(root)", "_internal", "wire"],
  "mcp/protocol": ["(root)", "_internal", "wire", "transport"],
  "mcp/client": ["(root)", "_internal", "wire", "transport", "mcp", "mcp/protocol"],
  "mcp/server": ["(root)", "_internal", "wire", "transport", "mcp", "mcp/protocol"],
  mcp: ["wire", "mcp/protocol", "mcp/client", "mcp/server"],
  store: ["(root)", "_internal", "wire", "transport", "mcp/client", "mcp/server"],
  "a2a/shared": [],
  "a2a/client": ["(root)", "_internal", "wire", "transport", "a2a/shared", "mcp/protocol", "model", "loop"],
  // The model interface sits below the loop: the loop calls a model, a model knows nothing of the loop.
  model: ["(root)", "_internal", "wire"],
  loop: ["(root)", "_internal", "wire", "model"],
  tool: ["(root)", "_internal", "wire", "mcp/protocol", "mcp/server", "loop"],
  telemetry: ["(root)", "wire", "loop"],
  triggers: ["(root)", "_internal", "wire", "config", "store", "model", "loop"],
  supervisor: ["(root)", "_internal", "wire", "transport", "config", "mcp/server", "model", "loop"],
  // _internal: withoutUndefined, for the task table's options merged over their defaults.
  serve: ["(root)", "_internal", "wire", "transport", "mcp", "mcp/protocol", "mcp/client", "mcp/server", "model", "loop"],
  "a2a/server": ["(root)", "_internal", "wire", "transport", "a2a/shared", "mcp/protocol", "mcp/client", "loop", "serve"],
  // The agent's rooms (agent/<room>/) and its top (create-agent.ts, create-agent-from-config.ts, index.ts, the
  // Agent interface, the subagent child's entry). Each may reach every lower layer (AGENT_LOWER); between
  // rooms the edges go one way, in this reading order: the leaves (sampling, checkpoint, console) → types
  // (the agent's options and the option types they name) → connections → tools → run → live → serving →
  // from-config → the top. A room never imports the top; `createAgent` builds them in the same order.
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
    "agent/types",
  ],
  "agent/sampling": [...AGENT_LOWER],
  "agent/checkpoint": [...AGENT_LOWER],
  "agent/console": [...AGENT_LOWER],
  // Conversations that continue (docs/conversations.md): a store and a bound, below everything that uses them.
  "agent/conversations": [...AGENT_LOWER],
  "agent/types": [...AGENT_LOWER, "agent/checkpoint", "agent/conversations", "agent/sampling"],
  "agent/connections": [...AGENT_LOWER, "agent/types", "agent/sampling"],
  "agent/tools": [...AGENT_LOWER, "agent/types", "agent/connections", "agent/sampling"],
  "agent/run": [...AGENT_LOWER, "agent/types", "agent/checkpoint", "agent/conversations", "agent/sampling", "agent/tools"],
  "agent/live": [...AGENT_LOWER, "agent/types", "agent/checkpoint", "agent/run"],
  "agent/serving": [...AGENT_LOWER, "agent/types", "agent/checkpoint", "agent/console", "agent/live", "agent/run", "agent/sampling"],
  "agent/from-config": [
    ...AGENT_LOWER,
    "agent/types",
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
  otel: ["@agentd/sdk", "@agentd/sdk/loop", "@agentd/sdk/telemetry"],
  adapters: ["@agentd/sdk/model"],
  testkit: ["@agentd/sdk", "@agentd/sdk/wire", "@agentd/sdk/transport", "@agentd/sdk/mcp", "@agentd/sdk/telemetry"],
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

/** The folders `from` reaches through the table (not itself unless through a cycle). */
function reachable(from: string, edges: Record<string, readonly string[]>): Set<string> {
  const seen = new Set<string>();
  const stack = [...(edges[from] ?? [])];
  while (stack.length) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(edges[next] ?? []));
  }
  return seen;
}

test("the agent's rooms form no cycle: no room reaches itself through the table, and none reaches the top", () => {
  const rooms = Object.keys(SDK_EDGES).filter((u) => u.startsWith("agent/"));
  expect(rooms.length).toBeGreaterThanOrEqual(10);
  // The edges among the agent's own folders (the layers below are checked by the table's other rows).
  const agentEdges = Object.fromEntries(
    [...rooms, "agent"].map((u) => [u, SDK_EDGES[u]!.filter((to) => to === "agent" || to.startsWith("agent/"))]),
  );
  const cycles = rooms.filter((r) => reachable(r, agentEdges).has(r));
  expect(cycles).toEqual([]);
  expect(rooms.filter((r) => reachable(r, agentEdges).has("agent"))).toEqual([]);
  // The reading order stated above: each room imports only rooms before it.
  const order = [
    "agent/sampling",
    "agent/checkpoint",
    "agent/console",
    "agent/conversations",
    "agent/types",
    "agent/connections",
    "agent/tools",
    "agent/run",
    "agent/live",
    "agent/serving",
    "agent/from-config",
  ];
  expect([...rooms].sort()).toEqual([...order].sort());
  for (const [i, room] of order.entries())
    for (const to of SDK_EDGES[room]!.filter((u) => u.startsWith("agent/")))
      expect(order.indexOf(to), `${room} → ${to} goes against the reading order`).toBeLessThan(i);
});

test("the check sees a forbidden edge (the table is not vacuous)", () => {
  // wire is the bottom layer: nothing above it may be reached from it.
  expect(SDK_EDGES.wire).toEqual([]);
  expect(unitOf("mcp/client/client.ts")).toBe("mcp/client");
  expect(unitOf("agent/create-agent.ts")).toBe("agent");
  expect(SDK_EDGES.loop!.includes("agent")).toBe(false);
  expect(SDK_EDGES.model!.includes("loop")).toBe(false);
  expect(productionFiles("sdk").length).toBeGreaterThan(100);
});

test("the layer order is the imports' order: every edge of the table points to an earlier layer or within one", () => {
  const backwards: string[] = [];
  for (const [from, tos] of Object.entries(SDK_EDGES)) {
    const a = layerOf(from);
    if (a === undefined) continue;
    expect(LAYER_ORDER as readonly string[]).toContain(a);
    for (const to of tos) {
      const b = layerOf(to);
      if (b !== undefined && LAYER_ORDER.indexOf(b as never) > LAYER_ORDER.indexOf(a as never)) backwards.push(`${from} → ${to}`);
    }
  }
  expect(backwards).toEqual([]);
  // Every layer of the order is a folder of the table.
  for (const layer of LAYER_ORDER) expect(Object.keys(SDK_EDGES).some((u) => layerOf(u) === layer)).toBe(true);
});

test("the index.ts header and docs/architecture.md give the same layer order", () => {
  const header = readFileSync(`${PACKAGES}/sdk/src/index.ts`, "utf8");
  const line = header.split("\n").find((l) => l.startsWith(" * wire → "));
  expect(line?.slice(3)).toBe(LAYER_ORDER.join(" → "));
  const doc = readFileSync(resolve(PACKAGES, "../docs/architecture.md"), "utf8");
  const tree = doc.slice(doc.indexOf("packages/sdk/src/"), doc.indexOf("packages/adapters/"));
  const listed: string[] = [];
  for (const m of tree.matchAll(/^ {2}([a-z0-9_]+(?:\/[a-z0-9_]+)?)\//gm)) {
    const layer = layerOf(m[1]!);
    if (layer !== undefined && listed.at(-1) !== layer) listed.push(layer);
  }
  expect(listed).toEqual([...LAYER_ORDER]);
});

test("Bun.serve is called in the HTTP server's Bun adapter and the OAuth login's loopback listener only", () => {
  const callers = productionFiles("sdk").filter((f) => /\bBun\.serve\(/.test(readFileSync(`${PACKAGES}/sdk/src/${f}`, "utf8")));
  expect(callers.sort()).toEqual(["transport/http-client/oauth/loopback-redirect.ts", "transport/http-server/adapter/bun.ts"]);
});
