/**
 * What a hostile A2A agent cannot do to agentd's client, over real HTTP on 127.0.0.1: send an endless agent
 * card or an endless reply (the read stops at the limit, the connection is closed, one line names the
 * endpoint and the limit), or redirect a request carrying the configured headers and the message to
 * another origin (nothing reaches it; the error names both origins).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type HostilePeer, type RedirectPair, startHostilePeer, startRedirectPair } from "@agentd/test-support/hostile-peer";
import { AgentdError } from "../../wire/errors.ts";
import { A2aClient, AGENT_CARD_PATH } from "./client.ts";

const SENT_AT_MOST = 32 * 1024 * 1024;
const TOKEN = "a2a-SECRET-token-0123456789";
const headers = { "x-agent-token": TOKEN };

const card = (url: string, binding: "JSONRPC" | "HTTP+JSON") => ({
  name: "hostile",
  supportedInterfaces: [{ url, protocolBinding: binding, protocolVersion: "1.0" }],
  capabilities: { streaming: false },
});
const message = { message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "the secret plan" }] } };

async function failureOf(run: () => Promise<unknown>): Promise<AgentdError> {
  try {
    await run();
  } catch (e) {
    if (AgentdError.isInstance(e)) return e;
    throw e;
  }
  throw new Error("the call succeeded");
}

let peer: HostilePeer | undefined;
let pair: RedirectPair | undefined;
afterEach(() => {
  peer?.stop();
  pair?.stop();
  peer = pair = undefined;
});

test("an endless agent card stops at 1 MiB", async () => {
  peer = startHostilePeer(() => ({ endless: true, contentType: "application/json", head: '{"name":"', unit: "x".repeat(1000) }));
  const e = await failureOf(() => A2aClient.connect(peer!.url, { name: "hostile", headers }));
  expect(e.code).toBe("E_UPSTREAM");
  expect(e.message).toBe(
    `A2A agent 'hostile': its agent card at ${peer.url}${AGENT_CARD_PATH} sent a response body over the 1 MiB limit; agentd stopped reading and closed the connection`,
  );
  expect(await peer.cutOff).toBeLessThan(SENT_AT_MOST);
});

for (const binding of ["JSONRPC", "HTTP+JSON"] as const)
  describe(`over ${binding}`, () => {
    test("an endless SendMessage reply stops at maxResponseBytes", async () => {
      peer = startHostilePeer((_req, url) =>
        url.pathname === AGENT_CARD_PATH
          ? Response.json(card(`${peer!.url}/a2a`, binding))
          : {
              endless: true,
              contentType: "application/json",
              head: '{"jsonrpc":"2.0","id":1,"result":{"message":{"parts":[{"text":"',
              unit: "y".repeat(1000),
            },
      );
      const client = await A2aClient.connect(peer.url, { headers, maxResponseBytes: 1024 * 1024 });
      const e = await failureOf(() => client.sendMessage(message));
      expect(e.code).toBe("E_UPSTREAM");
      expect(e.message).toStartWith(`A2A agent 'hostile' (SendMessage) ${peer.url}/a2a`);
      expect(e.message).toContain("sent a response body over the 1 MiB limit");
      expect(await peer.cutOff).toBeLessThan(SENT_AT_MOST);
    });

    test("SendMessage redirected to another origin: the headers and the message stay home", async () => {
      pair = startRedirectPair(307);
      const interfaceUrl = `${pair.from}/a2a`;
      peer = startHostilePeer(() => Response.json(card(interfaceUrl, binding)));
      const client = await A2aClient.connect(peer.url, { headers });
      const e = await failureOf(() => client.sendMessage(message));
      expect(pair.received).toEqual([]);
      expect(e.code).toBe("E_UPSTREAM");
      expect(e.message).toContain(pair.from);
      expect(e.message).toContain(pair.to);
      expect(e.message).not.toContain(TOKEN);
    });
  });

test("the agent card redirected to another origin with the agent's headers: refused, nothing arrives", async () => {
  pair = startRedirectPair(302);
  const e = await failureOf(() => A2aClient.connect(pair!.from, { name: "hostile", headers }));
  expect(pair.received).toEqual([]);
  expect(e.message).toBe(
    `A2A agent 'hostile' redirected GET to another origin (${pair.to}, from ${pair.from}), which agentd does not follow with credentials or a request body; configure the final URL instead`,
  );
});
