import { describe, expect, test } from "bun:test";
import { MemoryTransport } from "../../transport/memory.ts";
import type { Root } from "../../wire/index.ts";
import { McpClient } from "./client.ts";
import { newServer, onCleanup, useCleanup } from "../__fixtures__/test-harness.ts";
import { settleRoots, watchRootsRequests } from "./roots-settle.ts";

useCleanup();

const ROOTS: Root[] = [{ uri: "file:///srv/data", name: "data" }];

/**
 * A server shaped like server-filesystem: optionally asks `roots/list` when initialized, applies the answer
 * only when `apply()` lets it (the asynchronous part the protocol cannot see), and reports the applied
 * directories through `list_allowed_directories` (optionally).
 */
async function serverLike(options: { asks: boolean; probe: boolean; applyAfterProbes?: number }) {
  const server = newServer();
  let allowed: string[] = [];
  let probes = 0;
  let answered: Root[] | undefined;
  const applyIfDue = () => {
    if (answered && options.applyAfterProbes !== undefined && probes >= options.applyAfterProbes)
      allowed = answered.map((r) => new URL(r.uri).pathname);
  };
  if (options.probe)
    server.tool({ name: "list_allowed_directories" }, () => {
      probes++;
      const text = `Allowed directories:\n${allowed.join("\n")}`;
      applyIfDue(); // applied *after* this answer: the next probe sees it
      return { content: [{ type: "text", text }] };
    });
  server.tool({ name: "read" }, () => ({ content: [{ type: "text", text: allowed.length ? "ok" : "outside allowed directories" }] }));
  const [a, b] = MemoryTransport.createPair();
  const session = await server.connect(b);
  if (options.asks)
    session.events.on("initialized", () => {
      void session.listRoots().then((roots) => {
        answered = roots;
        applyIfDue();
      });
    });
  const client = new McpClient({ name: "client", version: "0.1.0" }, { capabilities: { roots: ROOTS } });
  onCleanup(() => client.close());
  const asked = watchRootsRequests(client);
  await client.connect(a);
  return { client, asked, probes: () => probes };
}

describe("settleRoots", () => {
  test("a server that does not ask for roots at start-up: one ping, no probe", async () => {
    const s = await serverLike({ asks: false, probe: true, applyAfterProbes: 0 });
    expect(await settleRoots(s.client, { roots: ROOTS, asked: s.asked })).toBe("not-asked");
    expect(s.probes()).toBe(0);
  });

  test("a server that asked, without a way to report its state: answered is all there is to know", async () => {
    const s = await serverLike({ asks: true, probe: false });
    expect(await settleRoots(s.client, { roots: ROOTS, asked: s.asked })).toBe("answered");
    expect(s.asked()).toBe(true);
  });

  test("a server that applies its roots late: the wait ends on its own report, and the next request is served", async () => {
    const s = await serverLike({ asks: true, probe: true, applyAfterProbes: 2 });
    expect(await settleRoots(s.client, { roots: ROOTS, asked: s.asked })).toBe("applied");
    expect(s.probes()).toBe(3);
    expect((await s.client.callTool("read")).content).toEqual([{ type: "text", text: "ok" }]);
  });

  test("a server that never lists our roots: the wait is bounded and says so", async () => {
    const s = await serverLike({ asks: true, probe: true });
    expect(await settleRoots(s.client, { roots: ROOTS, asked: s.asked, timeoutMs: 50 })).toBe("unconfirmed");
    expect(s.probes()).toBeGreaterThanOrEqual(1);
  });
});
