/**
 * Preloaded into a benchmark server by `idle-classes.ts`: on SIGUSR2 it collects garbage, takes a JS heap
 * snapshot and writes, to the file `IDLE_CLASSES_OUT` names, the count and bytes of live objects by class.
 */
import { writeFileSync } from "node:fs";

type Snapshot = { nodes: number[]; nodeClassNames: string[] };

process.on("SIGUSR2", () => {
  Bun.gc(true);
  Bun.gc(true);
  const { nodes, nodeClassNames } = Bun.generateHeapSnapshot() as unknown as Snapshot;
  const byClass: Record<string, [number, number]> = {};
  // Each node is [id, size, class name index, flags].
  for (let i = 0; i < nodes.length; i += 4) {
    const name = nodeClassNames[nodes[i + 2] as number] ?? "?";
    const row = (byClass[name] ??= [0, 0]);
    row[0]++;
    row[1] += nodes[i + 1] as number;
  }
  writeFileSync(process.env.IDLE_CLASSES_OUT as string, JSON.stringify(byClass));
});
