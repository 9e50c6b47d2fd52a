/**
 * What loading the configuration has to tell the user before anything starts, said the same way by every
 * command that reads `--mcp-config` files (`run`, `serve`, `mcp`): each server left out of a file (or
 * renamed, its name being one agentd cannot use) is one warning line with the reason; each key of a file's entries that agentd did not take is one debug line
 * with why, and the file gets ONE warning line naming them all (labels such as a description are left to
 * the debug lines).
 */
import type { Logger, ResolvedConfig } from "@agentd/sdk";

/** Log the servers left out and the keys not taken (see the module header). */
export function reportConfigNotes(
  resolved: Pick<ResolvedConfig, "skippedServers" | "foreignKeysNotTaken" | "renamedServers">,
  logger: Logger,
): void {
  for (const [server, reason] of Object.entries(resolved.skippedServers ?? {})) logger.warn("config.server_skipped", { server, reason });
  for (const [server, reason] of Object.entries(resolved.renamedServers ?? {})) logger.warn("config.server_renamed", { server, reason });
  for (const { file, tool, keys } of resolved.foreignKeysNotTaken ?? []) {
    for (const k of keys) logger.debug("config.key_not_taken", { file, server: k.server, key: k.key, why: k.why });
    const named = keys.filter((k) => !k.quiet).map((k) => `${k.server}.${k.key}`);
    if (named.length > 0)
      logger.warn("config.keys_not_taken", {
        file,
        tool,
        keys: named.join(", "),
        hint: "these settings of the other tool have no effect in agentd; AGENT_LOG_LEVEL=debug says why for each",
      });
  }
}
