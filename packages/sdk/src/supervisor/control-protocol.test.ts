import { expect, test } from "bun:test";
import { CONTROL_PROTOCOL_VERSION, parseStartParams } from "./control-protocol.ts";

const start = (model: Record<string, unknown>, server: Record<string, unknown>) => ({
  protocol: CONTROL_PROTOCOL_VERSION,
  id: "h1",
  runId: "run-1",
  attempt: 1,
  depth: 1,
  instruction: "work",
  scopes: [],
  limits: {},
  model,
  mcpServers: { slow: server },
  subagents: { maxDepth: 2, maxChildren: 4, maxRestarts: 2, graceMs: 1000 },
});

test("a child takes the parent's validated durations (milliseconds), though the config itself wants units", () => {
  const r = parseStartParams(
    start(
      { intelligence: "http://127.0.0.1:1/v1", name: "m", timeout: 120_000 },
      { command: "srv", timeout: 1000, maxTotalTimeout: 30_000, sampling: { budget: { calls: 3, window: 60_000 } } },
    ),
  );
  expect(r.ok).toBe(true);
  if (!r.ok) throw new Error(r.reason);
  expect(r.value.model.timeout).toBe(120_000);
  expect(r.value.mcpServers.slow).toMatchObject({ timeout: 1000, maxTotalTimeout: 30_000, sampling: { budget: { window: 60_000 } } });
});

test("a bad value is still refused, naming its place", () => {
  const r = parseStartParams(start({ name: "m", timeout: "soon" }, { command: "srv" }));
  expect(r.ok).toBe(false);
  if (r.ok) throw new Error("accepted");
  expect(r.reason).toStartWith("model.timeout:");
});
