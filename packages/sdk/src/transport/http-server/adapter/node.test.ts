/**
 * The server case suite with the Node adapter (`node:http` / `node:https`), run under Bun, which implements
 * them. `node-runtime.test.ts` runs the same cases against the SDK built for Node, under Node.
 */
import { describe, expect, test } from "bun:test";
import { runServerCases } from "../__fixtures__/server.case.ts";
import { startCaseServer } from "../__fixtures__/case-server.ts";
import { createStreamableHttpServer } from "../index.ts";

runServerCases("the server with the Node adapter under Bun", (o) => startCaseServer(o, "node"));

describe("choosing the adapter", () => {
  test("an unknown adapter name is refused with one line", async () => {
    await expect(createStreamableHttpServer({ onsession: () => {}, adapter: "deno" as never })).rejects.toThrow(
      'http server: adapter must be "bun" or "node"',
    );
  });
});
