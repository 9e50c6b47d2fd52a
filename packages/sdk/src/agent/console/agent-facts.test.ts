import { expect, test } from "bun:test";
import { registerSecretValue } from "../../secret-values.ts";
import { agentConsoleFacts } from "./agent-facts.ts";

test("an A2A peer's URL holding a secret (a `${VAR}` key in its query) is shown masked", () => {
  registerSecretValue("peer-Key-3Vn8Qs1");
  const facts = agentConsoleFacts({
    clients: new Map(),
    a2aAgents: { billing: { url: "https://billing.example/a2a?key=peer-Key-3Vn8Qs1" }, plain: { url: "https://plain.example/" } },
    lifecycle: () => ({}),
    ready: async () => ({ ok: true as const }),
  });
  expect(facts.a2aPeers?.()).toEqual([
    { name: "billing", url: "https://billing.example/a2a?key=[redacted]" },
    { name: "plain", url: "https://plain.example/" },
  ]);
});
