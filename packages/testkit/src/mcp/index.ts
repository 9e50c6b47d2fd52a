/**
 * Fake MCP servers for tests: in memory (`createFakeMcpServer(spec).connectInMemory()`), or as a real
 * stdio child process (`fakeServerCommand(spec)` → `{ command, args }` for an `mcpServers` config, with a
 * control channel to change resources at run time), and the conformance fixture server.
 */
export type {
  FakeMcpServerSpec,
  FakePromptMessage,
  FakePromptSpec,
  FakeResourceContent,
  FakeResourceSpec,
  FakeResourceTemplateSpec,
  FakeToolSpec,
  LogStep,
  ProgressStep,
  RecordedCancellation,
  // Named for MCP: the gateway has its own RecordedRequest.
  RecordedNotification as RecordedMcpNotification,
  RecordedRequest as RecordedMcpRequest,
} from "./types.ts";
export { createFakeMcpServer, FakeMcpServer, type FakeMcpServerOptions, type RecordMatch } from "./fake-mcp-server.ts";
export { checkSpec } from "./spec-check.ts";
export { fakeServerCommand, type FakeServerCommand, type FakeServerCommandOptions } from "./fake-server-command.ts";
export { FakeServerControl } from "./control-client.ts";
export { createConformanceFixtureServer, CONFORMANCE_FIXTURES } from "./conformance-fixture.ts";
