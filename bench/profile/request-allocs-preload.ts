/**
 * Preloaded into a benchmark server by `request-allocs.ts`. On SIGUSR1 it collects garbage and notes the JS
 * heap's object counts by type (`bun:jsc` `heapStats().objectTypeCounts`); on SIGUSR2 it writes, to the file
 * `REQUEST_ALLOCS_OUT` names, how much each count grew since. The server runs with the collector held off
 * (a heap limit far above what the window allocates, and Bun's GC timer off), so the growth is every object
 * allocated in the window, dead or alive — an allocation census, not a count of what survives.
 */
import { heapStats } from "bun:jsc";
import { renameSync, writeFileSync } from "node:fs";

let before: Record<string, number> = {};

process.on("SIGUSR1", () => {
  Bun.gc(true);
  before = heapStats().objectTypeCounts;
  publish("{}");
});

process.on("SIGUSR2", () => {
  const after = heapStats().objectTypeCounts;
  const grown: Record<string, number> = {};
  for (const [type, n] of Object.entries(after)) if (n !== (before[type] ?? 0)) grown[type] = n - (before[type] ?? 0);
  publish(JSON.stringify(grown));
});

/** Write the census whole under a temporary name, then rename it: the reader never sees half of it. */
function publish(text: string): void {
  const out = process.env.REQUEST_ALLOCS_OUT as string;
  writeFileSync(`${out}.part`, text);
  renameSync(`${out}.part`, out);
}
