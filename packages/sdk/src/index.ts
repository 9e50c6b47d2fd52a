/**
 * @agentd/sdk — the framework-free core of agentd.
 *
 * Layers, data flowing one way: wire → transport → mcp → loop → triggers → supervisor → serve → agent.
 */
export * from "./wire/index.ts";
export * from "./transport/index.ts";
export * from "./mcp/index.ts";
export * from "./loop/index.ts";
export * from "./config/index.ts";
export * from "./serve/index.ts";
export * from "./agent/index.ts";
export * from "./supervisor/index.ts";
export * from "./log.ts";
export { selfCommand, isCompiledBinary } from "./_internal/self-command.ts";
export { setLongTimeout, type CancelTimer } from "./_internal/timer.ts";
export { loadTelemetry, type LoadTelemetryOptions, type RunOrigin, type RunTelemetry, type Telemetry } from "./telemetry/index.ts";
