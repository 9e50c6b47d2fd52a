/**
 * End to end: the real `agentd run` process, scripted by the fake gateway, delegating to a remote agent
 * configured in `a2aAgents` — a scripted agent served by the independent `@a2a-js/sdk` on 127.0.0.1.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { startPeer, type Peer } from "@agentd/test-support/a2a-peer";
import { CliWorkspace, events } from "@agentd/test-support/cli-process";

setDefaultTimeout(60_000);

let ws: CliWorkspace | undefined;
let gateway: FakeGateway | undefined;
let peer: Peer | undefined;
afterEach(async () => {
  await gateway?.close();
  await peer?.close();
  ws?.cleanup();
  gateway = peer = ws = undefined;
});

const modelEnv = (g: FakeGateway) => ({ AGENT_INTELLIGENCE: g.url, AGENT_DIALECT: "openai", AGENT_MODEL: "test-model" });

test("agentd run delegates to an A2A agent: the answer comes back, the run id reaches the peer, the token is sent", async () => {
  ws = new CliWorkspace();
  peer = await startPeer({ token: "peer-token-1" });
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: req.tools.find((t) => t.startsWith("a2a"))!, arguments: { message: "echo from agentd" } }] }),
      (req) => ({ text: `peer said: ${req.lastToolResult?.match(/echo: from agentd/)?.[0]}` }),
    ],
  });
  const config = ws.writeConfig({ a2aAgents: { helper: { url: peer.url, headers: { Authorization: "Bearer ${PEER_TOKEN}" } } } });
  const run = await ws.run(["run", "--config", config, "Ask the helper"], {
    env: { ...modelEnv(gateway), RUN_ID: "run-a2a-e2e", PEER_TOKEN: "peer-token-1" },
  });
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("peer said: echo: from agentd\n");
  expect(peer.received[0]?.metadata?.["agentd.dev/run-id"]).toBe("run-a2a-e2e");
  expect(run.stderr).not.toContain("peer-token-1");
  expect(events(run).some((e) => e.event === "a2a.status")).toBe(true);
});

test("input-required round trip through agentd run: the model answers on the same task", async () => {
  ws = new CliWorkspace();
  peer = await startPeer();
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: req.tools.find((t) => t.startsWith("a2a"))!, arguments: { message: "ask" } }] }),
      (req) => {
        const ids = JSON.parse(/again with (\{.*\})/.exec(req.lastToolResult ?? "")![1]!) as {
          message: string;
          taskId: string;
          contextId: string;
        };
        return { toolCalls: [{ name: req.tools.find((t) => t.startsWith("a2a"))!, arguments: { ...ids, message: "green" } }] };
      },
      (req) => ({ text: req.lastToolResult?.includes("colour: green") ? "colour set" : `colour lost: ${req.lastToolResult}` }),
    ],
  });
  const config = ws.writeConfig({ a2aAgents: { helper: { url: peer.url } } });
  const run = await ws.run(["run", "--config", config, "Pick a colour with the helper"], { env: modelEnv(gateway) });
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("colour set\n");
  expect(peer.received.map((m) => m.taskId)).toEqual([peer.received[0]!.taskId, peer.received[0]!.taskId]);
});

test("the run's deadline cancels the remote task before agentd exits (exit 3)", async () => {
  ws = new CliWorkspace();
  peer = await startPeer();
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [(req) => ({ toolCalls: [{ name: req.tools.find((t) => t.startsWith("a2a"))!, arguments: { message: "hang" } }] })],
  });
  const config = ws.writeConfig({ a2aAgents: { helper: { url: peer.url } } });
  const run = await ws.run(["run", "--config", config, "--deadline", "4s", "Wait for the helper"], { env: modelEnv(gateway) });
  expect(run.code).toBe(3);
  // The process exited only after its CancelTask was answered.
  expect(peer.cancelled).toEqual([await peer.hanging]);
});

test("agentd run delegates to a v0.3-only agent in v0.3; one offering 0.3 over HTTP+JSON only is refused with one line", async () => {
  ws = new CliWorkspace();
  peer = await startPeer({ v03Only: true });
  gateway = await startFakeGateway({
    dialect: "openai",
    script: [
      (req) => ({ toolCalls: [{ name: req.tools.find((t) => t.startsWith("a2a"))!, arguments: { message: "echo over 0.3" } }] }),
      (req) => ({ text: `old said: ${req.lastToolResult?.match(/echo: over 0\.3/)?.[0]}` }),
    ],
  });
  const config = ws.writeConfig({ a2aAgents: { old: { url: peer.url } } });
  const run = await ws.run(["run", "--config", config, "Ask the old agent"], { env: modelEnv(gateway) });
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("old said: echo: over 0.3\n");
  await peer.close();

  peer = await startPeer({ v03Only: true, restOnly: true });
  const restOnly = ws.writeConfig({ a2aAgents: { old: { url: peer.url } } });
  const refused = await ws.run(["run", "--config", restOnly, "Ask the old agent"], { env: modelEnv(gateway) });
  expect(refused.code).toBe(4);
  expect(refused.stderr).toContain(`A2A agent 'old' at ${peer.url}: it speaks A2A 0.3 without a JSON-RPC interface`);
  expect(refused.stderr).not.toContain("    at ");
});
