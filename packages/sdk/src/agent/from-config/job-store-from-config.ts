/**
 * `durability.schedules` (or `durability.store` alone) → the cron job store in the MCP store, for the
 * time-zone cron with schedules; `triggers.jobStore` (a file) wins (both set is refused). Undefined when
 * neither applies.
 */
import type { AgentdConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import type { StoreJobStore } from "../../triggers/store-job-store.ts";
import { upstreamError } from "../connections/connect-server.ts";
import { checkDurability, durablePartOn, durableStoreEntry, storeConnection } from "./durable-store.ts";

/** The store-backed job store the config asks for, or undefined. */
export function jobStoreFromConfig(config: AgentdConfig, logger: Logger): StoreJobStore | undefined {
  checkDurability(config);
  if (config.triggers?.jobStore !== undefined || !config.triggers?.schedules?.length) return undefined;
  if (config.capabilities?.cron !== "timezones" || !durablePartOn(config, "schedules")) return undefined;
  const entry = durableStoreEntry(config, "schedules");
  if (!entry) return undefined;
  const connection = storeConnection("job-store", entry, logger);
  // Its module loads only for a configuration that uses it (createAgentFromConfig is synchronous).
  const { StoreJobStore: Store } = require("../../triggers/store-job-store.ts") as typeof import("../../triggers/store-job-store.ts");
  return new Store({
    identity: config.durability?.schedules?.identity ?? "agentd",
    store: async () => {
      try {
        return await connection.store();
      } catch (e) {
        throw upstreamError("job-store", e);
      }
    },
    close: () => connection.close(),
  });
}
