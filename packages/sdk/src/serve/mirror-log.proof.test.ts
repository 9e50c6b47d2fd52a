/**
 * server notifications log mirroring wired as `agentd serve` wires it (every telemetry record, debug included, is mirrored to
 * the sessions as `notifications/message`) cannot feed back into itself: when a mirrored message cannot be
 * delivered, the transport logs the drop, and that record must stay local instead of being mirrored again
 * (which recursed until the stack overflowed when a session had no stream open).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { createLogger, type LogRecord } from "../log.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "../transport/http-server/index.ts";
import { createServedMcp, type ServedRunner } from "./served-mcp.ts";
import { initializeRequest, openSession, post, SseReader } from "@agentd/test-support/raw-mcp-http";

const idle: ServedRunner = { run: async () => Promise.reject(new Error("not used")) };
const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe("mirroring telemetry as notifications/message", () => {
  test("a record logged while mirroring (a dropped send) stays local; listening sessions get the original once", async () => {
    const self = createServedMcp({ runner: idle, capabilities: { serverNotifications: true } });
    const records: LogRecord[] = [];
    const logger = createLogger(
      (r) => {
        records.push(r);
        self.mirrorLog(r);
      },
      { level: "debug" },
    );
    const server = await createStreamableHttpServer({ onsession: (t) => self.server.connect(t).then(() => {}), logger });
    servers.push(server);
    const url = server.url;

    // A session that only initialized: no stream to carry server messages, so every send to it is dropped.
    const deaf = await post(url, initializeRequest());
    await new SseReader(deaf).until(0);
    // A session listening on its GET stream.
    const listening = await openSession(url);
    const get = new SseReader(await fetch(url, { headers: { ...listening.headers, accept: "text/event-stream" } }));
    await get.next(); // priming: the stream is open

    const before = records.length;
    expect(() => logger.info("probe.event", { n: 1 })).not.toThrow();
    const message = await get.nextMessage();
    expect(message?.message).toMatchObject({
      method: "notifications/message",
      params: { level: "info", logger: "agentd", data: { event: "probe.event", n: 1 } },
    });

    const since = records.slice(before);
    expect(since.filter((r) => r.event === "probe.event")).toHaveLength(1);
    // The drop for the deaf session was recorded locally, once, and not mirrored to anyone.
    expect(since.filter((r) => r.event === "http.drop")).toHaveLength(1);
    logger.info("probe.after", {});
    const next = await get.nextMessage();
    expect(next?.message.params.data.event).toBe("probe.after");
    await get.cancel();
  });
});
