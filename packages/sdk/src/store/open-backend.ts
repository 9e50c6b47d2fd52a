/** Pick a store backend from where it should live: a directory path or a `redis://` URL. */
import { AgentdError } from "../wire/errors.ts";
import { DirectoryBackend } from "./directory-backend.ts";
import { RedisBackend } from "./redis-backend.ts";
import type { StoreBackend } from "./types.ts";

/** Where a store keeps its documents. */
export type StoreLocation = { dir: string } | { redis: string; prefix?: string };

/** Open the backend for `location`. */
export function openStoreBackend(location: StoreLocation): StoreBackend {
  if ("dir" in location) return new DirectoryBackend(location.dir);
  if (!/^rediss?:\/\//.test(location.redis))
    throw new AgentdError("E_USAGE", "the Redis URL must start with redis:// or rediss:// (e.g. redis://127.0.0.1:6379)");
  return new RedisBackend({ url: location.redis, prefix: location.prefix || undefined });
}
