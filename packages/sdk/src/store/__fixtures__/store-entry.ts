#!/usr/bin/env bun
/**
 * The store served on stdio with nothing else loaded (what `agentd store` runs, minus the CLI), so the
 * fault test can start and kill it a hundred times quickly: `store-entry.ts --dir PATH | --redis URL PREFIX`.
 */
import { serveStoreStdio } from "../serve-store.ts";

const [flag, where, prefix] = process.argv.slice(2);
if (!where || (flag !== "--dir" && flag !== "--redis")) {
  process.stderr.write("usage: store-entry.ts --dir PATH | --redis URL [PREFIX]\n");
  process.exit(2);
}
await serveStoreStdio({ location: flag === "--dir" ? { dir: where } : { redis: where, prefix: prefix || undefined } });
