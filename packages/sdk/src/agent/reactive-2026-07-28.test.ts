/**
 * The reactive core over `subscriptions/listen`: an agent whose `mcpServers` entry says
 * `versionNegotiation: "auto"` speaks 2026-07-28 with the official v2 server (a real stdio child,
 * `mcp/__fixtures__/v2-sdk-server.ts`), and a subscription trigger source over the managed client behaves
 * exactly as over `resources/subscribe`: read right after subscribing, read again on each update, and after
 * the server dies and comes back, re-listen and re-read so a change made while it was down fires.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryLogger } from "../log.ts";
import { scriptedModel } from "../loop/__fixtures__/scripted-model.ts";
import { next } from "../mcp/client/managed/__fixtures__/crashy.ts";
import { systemClock } from "../triggers/clock.ts";
import { SubscriptionSource } from "../triggers/subscription-source.ts";
import type { EmitResult, TriggerEvent } from "../triggers/types.ts";
import { createAgent } from "./create-agent.ts";

setDefaultTimeout(60_000);

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const V2_SERVER = join(import.meta.dir, "..", "mcp", "__fixtures__", "v2-sdk-server.ts");

describe("a subscription trigger over a 2026-07-28 server", () => {
  test("read after listen, read on update, and re-listen + re-read after the server restarts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "agentd-listen-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const noteFile = join(dir, "note.txt");
    writeFileSync(noteFile, "v1");
    const agent = createAgent({
      model: scriptedModel([]),
      mcpServers: { v2: { command: process.execPath, args: [V2_SERVER], env: { NOTE_FILE: noteFile }, versionNegotiation: "auto" } },
      reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
    });
    cleanups.push(() => agent.close());
    await agent.connect();
    const managed = agent.clients.get("v2")!;
    expect(managed.protocolVersion).toBe("2026-07-28");

    const events: TriggerEvent[] = [];
    let wake = () => {};
    const text = (e: TriggerEvent) => (e.data as { text: string }).text;
    // A file watcher may report one write twice: wait for the content, not for a count.
    const emitted = (wanted: string) =>
      new Promise<TriggerEvent>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for a trigger event reading "${wanted}"`)), 30_000);
        wake = () => {
          const found = events.find((e) => text(e) === wanted);
          if (found) clearTimeout(timer), resolve(found);
        };
        wake();
      });
    const source = new SubscriptionSource({ client: managed, uri: "note://a", server: "v2" });
    cleanups.push(() => source.stop());
    await source.start({
      triggerId: "note",
      clock: systemClock(),
      logger: memoryLogger(),
      end: () => {},
      emit: async (e) => {
        events.push(e);
        wake();
        return { status: "ran", runId: e.runId, outcome: { status: "ok" } } satisfies EmitResult;
      },
    });
    const first = await emitted("v1");
    expect(events[0]).toBe(first);

    writeFileSync(noteFile, "v2");
    const second = await emitted("v2");
    expect(second.runId).not.toBe(first.runId);

    const disconnected = next(managed.events, "disconnected");
    const reconnected = next(managed.events, "reconnected");
    await managed.callTool("crash").catch(() => {});
    await disconnected;
    writeFileSync(noteFile, "v3 (written while down)");
    await reconnected;
    const third = await emitted("v3 (written while down)");
    expect(third.runId).not.toBe(second.runId);
    expect(managed.protocolVersion).toBe("2026-07-28");
    expect(managed.subscriptions()).toEqual(["note://a"]);
  });
});
