/**
 * What an end-to-end test of `agentd serve` starts beside it — a CLI workspace, a fake model gateway, a
 * testkit fake MCP server command — held in one object and stopped after each test, after every serve
 * process (`stopAllServe`), so no file spells its own `afterEach` for them. Call {@link serveParts} once at
 * the top of a test file: the hook belongs to the file that calls it.
 */
import { afterEach } from "bun:test";
import type { FakeGateway, FakeServerCommand } from "@agentd/testkit";
import type { CliWorkspace } from "@agentd/test-support/cli-process";
import { stopAllServe } from "./serve-process.ts";

/** The parts of the running test; each unset again after it. */
export interface ServeParts {
  ws?: CliWorkspace;
  gateway?: FakeGateway;
  fake?: FakeServerCommand;
}

/** The parts of this file's tests, stopped (serve processes, the gateway, the fake server, the workspace) after each. */
export function serveParts(): ServeParts {
  const parts: ServeParts = {};
  afterEach(async () => {
    await stopAllServe();
    await parts.gateway?.close();
    parts.fake?.dispose();
    parts.ws?.cleanup();
    parts.ws = parts.gateway = parts.fake = undefined;
  }, 30_000);
  return parts;
}
