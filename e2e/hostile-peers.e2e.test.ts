/**
 * End to end, the real `agentd run` against peers that turn on it, over loopback HTTP: a model endpoint whose
 * answer never ends (whole and streamed), an A2A agent whose card never ends, and a model endpoint that
 * redirects the request — API key and conversation — to another origin. Each run ends with exit 4 and one line
 * naming the endpoint and the limit (or both origins); the endless bodies are cut off at the limit.
 */
import { afterEach, expect, test } from "bun:test";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { type HostilePeer, type RedirectPair, startHostilePeer, startRedirectPair } from "@agentd/test-support/hostile-peer";

const SENT_AT_MOST = 32 * 1024 * 1024;
const KEY = "sk-ant-e2e-SECRET-0123456789";

let ws: CliWorkspace | undefined;
let peer: HostilePeer | undefined;
let pair: RedirectPair | undefined;
afterEach(() => {
  peer?.stop();
  pair?.stop();
  ws?.cleanup();
  ws = peer = pair = undefined;
});

const env = (url: string) => ({ AGENT_INTELLIGENCE: url, AGENT_DIALECT: "anthropic", AGENT_MODEL: "m-1", AGENT_API_KEY: KEY });
const endlessAnswer = (streamed: boolean) =>
  streamed
    ? {
        endless: true as const,
        contentType: "text/event-stream",
        head: 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"usage":{"input_tokens":1,"output_tokens":1}}}\n\nevent: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
        unit: `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${"x".repeat(2000)}"}}\n\n`,
      }
    : { endless: true as const, contentType: "application/json", head: '{"content":[{"type":"text","text":"', unit: "x".repeat(2000) };

for (const streamed of [false, true])
  test(`an endless model answer${streamed ? " (--stream)" : ""}: exit 4 at model.maxResponseBytes, naming the endpoint and the limit`, async () => {
    peer = startHostilePeer(() => endlessAnswer(streamed));
    ws = new CliWorkspace();
    const config = ws.writeConfig({ model: { maxResponseBytes: 2 * 1024 * 1024, maxRetries: 0 } });
    const run = await ws.run(["run", "--config", config, ...(streamed ? ["--stream"] : []), "hi"], { env: env(peer.url) });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(`model endpoint ${peer.url}/v1/messages sent a response body over the 2 MiB limit`);
    expect(run.stderr).not.toContain(KEY);
    expect(await peer.cutOff).toBeLessThan(SENT_AT_MOST);
  }, 60_000);

test("a model endpoint redirecting to another origin: exit 4 naming both origins; the key never arrives there", async () => {
  pair = startRedirectPair(307);
  ws = new CliWorkspace();
  const config = ws.writeConfig({ model: { maxRetries: 0 } });
  const run = await ws.run(["run", "--config", config, "hi"], { env: env(pair.from) });
  expect(run.code).toBe(4);
  expect(pair.received).toEqual([]);
  expect(run.stderr).toContain(`to another origin (${pair.to}, from ${pair.from})`);
}, 60_000);

test("an endless A2A agent card: exit 4 at 1 MiB, naming the card", async () => {
  peer = startHostilePeer(() => ({ endless: true, contentType: "application/json", head: '{"name":"', unit: "c".repeat(2000) }));
  ws = new CliWorkspace();
  const config = ws.writeConfig({ a2aAgents: { helper: { url: peer.url } } });
  const run = await ws.run(["run", "--config", config, "hi"], { env: env("http://127.0.0.1:9") });
  expect(run.code).toBe(4);
  expect(run.stderr).toContain(`its agent card at ${peer.url}/.well-known/agent-card.json sent a response body over the 1 MiB limit`);
  expect(await peer.cutOff).toBeLessThan(SENT_AT_MOST);
}, 60_000);
