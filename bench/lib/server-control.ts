/**
 * The control side of a benchmark server child (Bun or Node): it prints one JSON line saying where it
 * listens, then obeys stdin — `gc` runs a full garbage collection and answers `{"gc":true}` (so the parent
 * reads a settled RSS from /proc), and the end of stdin stops the process.
 */

/**
 * Announce `info` on stdout and serve the stdin control protocol until stdin closes. `commands` adds
 * commands of its own: each answers with the JSON line of what it returns.
 */
export function serveControl(info: Record<string, unknown>, onEnd?: () => unknown, commands: Record<string, () => unknown> = {}): void {
  process.stdout.write(`${JSON.stringify(info)}\n`);
  let buf = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (data: string) => {
    buf += data;
    let nl: number;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const command = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (command === "gc") {
        fullGc();
        process.stdout.write(`${JSON.stringify({ gc: true })}\n`);
      } else if (command === "heap") {
        void heapSummary().then((h) => process.stdout.write(`${JSON.stringify(h)}\n`));
      } else if (Object.hasOwn(commands, command)) {
        process.stdout.write(`${JSON.stringify(commands[command]?.())}\n`);
      }
    }
  });
  process.stdin.on("end", async () => {
    await onEnd?.();
    process.exit(0);
  });
}

function fullGc(): void {
  const bun = (globalThis as { Bun?: { gc(force: boolean): void } }).Bun;
  if (bun) {
    bun.gc(true);
    bun.gc(true);
    return;
  }
  const gc = (globalThis as { gc?: () => void }).gc; // node --expose-gc
  gc?.();
  gc?.();
}

/**
 * After a full GC: the JS heap's size and its object counts by type (Bun's `bun:jsc` heapStats), to see
 * what a server keeps per session. Under Node only the sizes.
 */
async function heapSummary(): Promise<Record<string, unknown>> {
  fullGc();
  const usage = process.memoryUsage();
  const base = { rssMb: usage.rss / 2 ** 20, heapUsedMb: usage.heapUsed / 2 ** 20, externalMb: usage.external / 2 ** 20 };
  if (!(globalThis as { Bun?: unknown }).Bun) return base;
  const jsc = (await import("bun:jsc")) as {
    heapStats(): {
      heapSize: number;
      heapCapacity: number;
      extraMemorySize: number;
      objectCount: number;
      objectTypeCounts: Record<string, number>;
    };
  };
  const stats = jsc.heapStats();
  return {
    ...base,
    heapSizeMb: stats.heapSize / 2 ** 20,
    heapCapacityMb: stats.heapCapacity / 2 ** 20,
    extraMemoryMb: stats.extraMemorySize / 2 ** 20,
    objectCount: stats.objectCount,
    types: stats.objectTypeCounts,
  };
}
