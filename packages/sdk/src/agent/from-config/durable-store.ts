/**
 * Which MCP store each durable part uses, and one connection per store. `durability.store` serves every
 * part (run claims, the checkpoint, OAuth tokens, the cron job store, served run ids); a part's own `store`
 * wins over it. Parts naming the same store share one MCP client — a stdio `agentd store --dir` holds its
 * directory's lock, so a second child on the same directory would be refused — opened on first use and
 * closed when the last part using it closes.
 */
import type { AgentdConfig, McpServerConfig } from "../../config/types.generated.ts";
import type { Logger } from "../../log.ts";
import { McpClient } from "../../mcp/client/client.ts";
import type { StoreClient } from "../../store/store-client.ts";
import { AgentdError } from "../../wire/errors.ts";
import { CLIENT_INFO, transportFor } from "../connections/connect-server.ts";

/** The durable parts that keep their state in a store. */
export type DurablePart = "claims" | "checkpoint" | "oauthTokens" | "schedules" | "servedRuns" | "conversations";

/** The store entry `part` uses, or undefined when none is configured. */
export function durableStoreEntry(config: AgentdConfig, part: DurablePart): McpServerConfig | undefined {
  const d = config.durability;
  if (!d) return undefined;
  const own = d[part]?.store;
  if (own) return own;
  if (d.store) return d.store;
  // Before `durability.store`, the checkpoint and the tokens defaulted to the claims' store.
  return part === "checkpoint" || part === "oauthTokens" ? d.claims?.store : undefined;
}

/**
 * Whether `part` is on: its block is present, or `durability.store` is set (the checkpoint also needs
 * `capabilities.checkpoint`, checked where it is built).
 */
export function durablePartOn(config: AgentdConfig, part: DurablePart): boolean {
  return config.durability?.[part] !== undefined || config.durability?.store !== undefined;
}

/** Refuse contradictory durability settings with one line (`E_CONFIG_INVALID`). */
export function checkDurability(config: AgentdConfig): void {
  const d = config.durability;
  if (!d) return;
  const fail = (line: string): never => {
    throw new AgentdError("E_CONFIG_INVALID", line);
  };
  const example = '(e.g. {"url": "https://agentd-store:7700/mcp"} or {"command": "agentd", "args": ["store", "--dir", "/var/lib/agentd"]})';
  for (const part of ["claims", "schedules", "servedRuns"] as const)
    if (d[part] && !durableStoreEntry(config, part))
      fail(`durability.${part} needs a store: set durability.store ${example} or durability.${part}.store`);
  if (d.schedules && config.triggers?.jobStore !== undefined)
    fail("triggers.jobStore (a file) and durability.schedules (a store) both keep the cron job store: remove one");
  if (d.schedules && config.capabilities?.cron !== "timezones")
    fail(
      'durability.schedules keeps the time-zone cron\'s last fires: set capabilities.cron to "timezones", or remove durability.schedules',
    );
}

interface Pooled {
  client: McpClient;
  opened: Promise<StoreClient>;
  users: number;
}

const pool = new Map<string, Pooled>();

/** A part's handle on a shared store connection. */
export interface StoreConnection {
  /** The store, connecting on first use (a failed connection is tried again by the next use). */
  store(): Promise<StoreClient>;
  /** Release this part's use; the last one closes the connection. */
  close(): Promise<void>;
}

/** A handle on the connection to `entry` (shared with every other part naming the same store). */
export function storeConnection(name: string, entry: McpServerConfig, logger: Logger): StoreConnection {
  const key = JSON.stringify(entry);
  let mine: Pooled | undefined;
  return {
    store: async () => {
      if (!mine) {
        let p = pool.get(key);
        if (!p) {
          const client = new McpClient(CLIENT_INFO, { logger });
          // The store's client (and the document URIs it shares with the store's server) loads with the first connection.
          const opened = client
            .connect(transportFor(name, entry, logger))
            .then(async () => new (await import("../../store/store-client.ts")).StoreClient(client));
          p = { client, opened, users: 0 };
          pool.set(key, p);
          const made = p;
          opened.catch(() => {
            if (pool.get(key) === made) pool.delete(key);
            void client.close().catch(() => {});
          });
        }
        p.users++;
        mine = p;
      }
      const held = mine;
      return held.opened.catch((e: unknown) => {
        if (mine === held) {
          mine = undefined;
          held.users--;
        }
        throw e;
      });
    },
    close: async () => {
      const p = mine;
      mine = undefined;
      if (!p || --p.users > 0) return;
      if (pool.get(key) === p) pool.delete(key);
      await p.client.close().catch(() => {});
    },
  };
}
