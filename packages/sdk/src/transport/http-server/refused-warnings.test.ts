/** Refused requests cannot flood the log: one `http.refused` line per reason and minute, then a count. */
import { afterEach, expect, test } from "bun:test";
import { memoryLogger } from "../../log.ts";
import { createResponder, initializeRequest, post } from "./__fixtures__/http-harness.ts";
import { createStreamableHttpServer, type StreamableHttpServer } from "./index.ts";

const servers: StreamableHttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

test("200 requests with a foreign Origin: one warn line at once, the other 199 in one summary", async () => {
  const logger = memoryLogger();
  const server = await createStreamableHttpServer({ onsession: createResponder().onsession, logger });
  servers.push(server);
  for (let i = 0; i < 200; i++) {
    const res = await post(server.url, initializeRequest(i), { origin: "https://evil.example" });
    expect(res.status).toBe(403);
    await res.body?.cancel();
  }
  const refused = () => logger.records.filter((r) => r.event === "http.refused");
  expect(refused()).toEqual([expect.objectContaining({ level: "warn", why: "origin", status: 403 })]);
  await server.close();
  expect(refused()).toEqual([
    expect.objectContaining({ why: "origin" }),
    expect.objectContaining({ level: "warn", why: "origin", status: 403, repeated: 199, windowMs: 60_000 }),
  ]);
});
