/** Serve a store on our own stdin/stdout until the client closes it (`agentd store`). */
import type { Logger } from "../log.ts";
import { StdioServerTransport } from "../transport/stdio-self.ts";
import { openStoreBackend, type StoreLocation } from "./open-backend.ts";
import { createStoreServer } from "./store-server.ts";

/** Options of {@link serveStoreStdio}. */
export interface ServeStoreOptions {
  location: StoreLocation;
  logger?: Logger;
  version?: string;
}

/** Serve the store on stdio; resolves once stdin has closed and the backend is closed. */
export async function serveStoreStdio(options: ServeStoreOptions): Promise<void> {
  const backend = openStoreBackend(options.location);
  try {
    // An unreachable server fails the start within a bounded time, before anything is served.
    await backend.ready?.();
  } catch (e) {
    await backend.close().catch(() => {});
    throw e;
  }
  const server = createStoreServer(backend, {
    logger: options.logger,
    version: options.version || undefined,
  });
  // A client subscribing right after initialize must hear every later change.
  await backend.watching?.();
  const session = await server.connect(new StdioServerTransport());
  await new Promise<void>((resolve) => session.events.on("close", () => resolve()));
  await server.close();
  await backend.close();
}
