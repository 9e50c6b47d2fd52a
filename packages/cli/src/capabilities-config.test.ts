/** The config's `capabilities` block reaches the MCP clients; unbuilt items are refused, never ignored. */
import { afterEach, expect, test } from "bun:test";
import { parseConfig } from "@agentd/sdk";
import { createFakeMcpServer } from "@agentd/testkit";
import { createModel } from "@agentd/adapters";
import { capabilitiesFromConfig, modelFromConfig } from "@agentd/sdk/agent";
import { McpClient } from "@agentd/sdk/mcp";
import { nullLogger } from "@agentd/sdk/telemetry";
import { MemoryTransport } from "@agentd/sdk/transport";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

test("absent capabilities are the defaults (switched off): nothing declared", () => {
  expect(capabilitiesFromConfig(parseConfig({}, {}))).toEqual({});
  expect(capabilitiesFromConfig(parseConfig({ capabilities: { roots: [], elicitation: "off", tasks: false } }, {}))).toEqual({});
});

test("roots (paths or file:// URIs), elicitation and tasks are switched on", async () => {
  const caps = capabilitiesFromConfig(
    parseConfig({ capabilities: { roots: ["/data/inbox", "file:///srv/x"], elicitation: "decline", tasks: true } }, {}),
  );
  expect(caps.roots).toEqual([
    { uri: "file:///data/inbox", name: "inbox" },
    { uri: "file:///srv/x", name: "x" },
  ]);
  expect(caps.elicitation).toBe("decline");
  expect(caps.tasks).toBe(true);
  // The client really declares them and answers roots/list with the configured roots.
  const server = createFakeMcpServer({ name: "caps", version: "1", tools: [{ name: "noop", text: "ok" }] });
  const [a, b] = MemoryTransport.createPair();
  const session = await server.connect(b);
  const client = new McpClient({ name: "t", version: "1" }, { capabilities: caps, logger: nullLogger });
  await client.connect(a);
  close = () => client.close();
  expect(session.clientCapabilities).toMatchObject({ roots: {}, elicitation: {} });
  expect(await session.listRoots()).toEqual(caps.roots as never);
});

test("bad sampling and checkpoint values are refused with one clear line, not ignored", () => {
  expect(() => parseConfig({ capabilities: { sampling: "yes" } }, {})).toThrow("capabilities.sampling");
  expect(() => parseConfig({ capabilities: { sampling: { budget: { calls: 0 } } } }, {})).toThrow("capabilities.sampling.budget.calls");
  expect(() => parseConfig({ capabilities: { checkpoint: "yes" } }, {})).toThrow("capabilities.checkpoint");
  expect(parseConfig({ capabilities: { sampling: false, checkpoint: false } }, {}).capabilities).toEqual({
    sampling: false,
    checkpoint: false,
  });
});

test("the gemini dialect is its own switch: the removed capabilities.gemini key is refused naming it", () => {
  expect(() => parseConfig({ model: { dialect: "gemini", name: "g" }, capabilities: { gemini: false } }, {})).toThrow(
    'capabilities.gemini: removed: choosing model.dialect "gemini" is the switch; delete this key',
  );
  expect(modelFromConfig(parseConfig({ model: { dialect: "gemini", name: "g" } }, {}), { createModel, logger: nullLogger }).provider).toBe(
    "gemini",
  );
  expect(
    modelFromConfig(parseConfig({ model: { dialect: "anthropic", name: "c" } }, {}), { createModel, logger: nullLogger }).provider,
  ).toBe("anthropic");
});

test('capabilities.cron takes "utc" or "timezones"; the old planning codes are refused naming the new values', () => {
  expect(parseConfig({ capabilities: { cron: "timezones" } }, {}).capabilities?.cron).toBe("timezones");
  expect(() => parseConfig({ capabilities: { cron: "v2" } }, {})).toThrow(
    'capabilities.cron: renamed: the 5-field UTC cron is now "utc", the richer one (time zones, catch-up, job store) "timezones"',
  );
});
