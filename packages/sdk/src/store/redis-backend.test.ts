import { afterAll, beforeAll } from "bun:test";
import { redisServerPath, startRedis, type RunningRedis } from "@agentd/test-support/redis-server";
import { RedisBackend } from "./redis-backend.ts";
import { runStoreCases } from "@agentd/test-support/store.case";

let redis: RunningRedis | undefined;
let n = 0;
let prefix = "";
beforeAll(async () => {
  if (redisServerPath) redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
});

// Skipped, never passed, where redis-server is not installed.
runStoreCases({
  skip: !redisServerPath,
  async open() {
    // A fresh prefix per test keeps tests apart on one server.
    prefix = `t${++n}:`;
    return new RedisBackend({ url: (redis as RunningRedis).url, prefix });
  },
  async reopen() {
    return new RedisBackend({ url: (redis as RunningRedis).url, prefix });
  },
});
