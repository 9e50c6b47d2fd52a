/** `agentd serve` and friends: user mistakes are one line, exit 2, and never echo file contents. */
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CliWorkspace } from "@agentd/test-support/cli-process";

let ws: CliWorkspace;
let blocker: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => {
  blocker?.stop(true);
  blocker = undefined;
  ws?.cleanup();
});

test("a TLS key file that is not PEM is refused without printing its contents", async () => {
  ws = new CliWorkspace();
  const cert = join(ws.dir, "c.pem");
  const key = join(ws.dir, "k.key");
  writeFileSync(cert, "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n");
  writeFileSync(key, "MY-PRIVATE-KEY-MATERIAL-xyz");
  const run = await ws.run(["serve", "--http", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key, "--grace", "1s"]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain("--tls-key");
  expect(run.stderr).toContain("is not a PEM file");
  expect(run.stderr).not.toContain("MY-PRIVATE-KEY-MATERIAL");
});

test("a port already in use is one line naming --http, exit 2", async () => {
  ws = new CliWorkspace();
  blocker = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("busy") });
  const run = await ws.run(["serve", "--http", `127.0.0.1:${blocker.port}`, "--grace", "1s"]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain("already in use");
  expect(run.stderr).not.toContain("unexpected error");
});

test("--grace takes any documented duration", async () => {
  ws = new CliWorkspace();
  const bad = await ws.run(["serve", "--stdio", "--grace", "soon"]);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--grace");
  // 1m30s is valid: serve starts on stdio and stops when stdin closes (empty stdin).
  const ok = await ws.run(["serve", "--stdio", "--grace", "1m30s"], { stdin: "" });
  expect(ok.code).toBe(0);
});

test("plain http:// to a remote MCP server is a configuration error (exit 2), not 'unavailable'", async () => {
  ws = new CliWorkspace();
  const config = ws.writeConfig({
    model: { intelligence: "http://127.0.0.1:9/v1", name: "m" },
    mcpServers: { r: { url: "http://example.com/mcp" } },
  });
  const run = await ws.run(["run", "--config", config, "hi"]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain("'r'");
  expect(run.stderr).toContain("https://");
});
