/**
 * Configuration: the agentd.json schema, `${VAR}` expansion, durations, and flags > env > file resolution.
 *
 * @module @agentd/sdk/config
 */
export * from "./schema.ts";
export * from "./load.ts";
export * from "./duration.ts";
export { apiKeyVariables, chooseApiKey, DIALECT_API_KEY_VARIABLES, type ApiKeyChoice } from "./api-key.ts";
export { expandEnv } from "./expand.ts";
export {
  mergeForeignServers,
  parseForeignServers,
  readForeignServers,
  type ForeignServers,
  type MergedServers,
  IGNORED_FOREIGN_FIELDS,
} from "./foreign-servers.ts";
