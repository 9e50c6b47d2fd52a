/** Transports: one interface, several implementations. */
export * from "./types.ts";
export { MemoryTransport } from "./memory.ts";
