#!/usr/bin/env bun
/**
 * A fake MCP server as a real stdio child process, for `mcpServers` configs and tests in any language:
 *
 *   bun packages/testkit/src/bin/fake-mcp-server.ts SPEC.json [--control SOCKET] [--record FILE]
 *
 * SPEC.json is a `FakeMcpServerSpec` (JSON only: static results, delays, progress, logs, crash, hang,
 * client requests, resources, templates, prompts). `--control` serves the control channel on that unix
 * socket (change resources and tools at run time, read the record); `--record` appends every request
 * received to FILE as one JSON line (with `pid`), written before the request is handled, so it survives a
 * `crash`. The process exits when its stdin closes. A bad spec or argument: one line on stderr, exit 2.
 */
import { appendFileSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { StdioServerTransport } from "@agentd/sdk/transport";
import { createFakeMcpServer } from "../mcp/fake-mcp-server.ts";
import { serveControl } from "../mcp/control-server.ts";
import { checkSpec } from "../mcp/spec-check.ts";
import type { FakeMcpServerSpec } from "../mcp/types.ts";

const USAGE = "usage: fake-mcp-server SPEC.json [--control SOCKET] [--record FILE]";

function load(): { spec: FakeMcpServerSpec; control?: string; record?: string } {
  const { values, positionals } = parseArgs({
    args: process.argv.slice(2),
    allowPositionals: true,
    options: { control: { type: "string" }, record: { type: "string" } },
  });
  if (positionals.length !== 1) throw new Error(USAGE);
  const path = positionals[0] as string;
  let spec: unknown;
  try {
    spec = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new Error(`cannot read spec ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  checkSpec(spec, { code: false });
  return { spec: spec as FakeMcpServerSpec, control: values.control, record: values.record };
}

async function main(): Promise<void> {
  let options: ReturnType<typeof load>;
  try {
    options = load();
  } catch (e) {
    process.stderr.write(`fake-mcp-server: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(2);
  }
  const fake = createFakeMcpServer(options.spec, { onCrash: (_session, code) => process.exit(code) });
  const record = options.record;
  if (record !== undefined) fake.onrequest = (request) => appendFileSync(record, `${JSON.stringify({ ...request, pid: process.pid })}\n`);
  // The control socket is up before stdio is served: once a client has initialized, the test may use it.
  const control = options.control === undefined ? undefined : await serveControl(options.control, fake);
  const session = await fake.connect(new StdioServerTransport());
  session.events.on("close", () => {
    void (control?.close() ?? Promise.resolve()).finally(() => process.exit(0));
  });
}

await main();
