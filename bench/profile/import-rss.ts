/**
 * Profiling aid (not part of `bun bench/run.ts`): what loading modules costs in resident memory. For each
 * argument, a fresh `bun` imports the listed modules (joined with `+`: SDK paths relative to
 * packages/sdk/src, or package and `node:` names), collects garbage until the RSS settles, and reports it;
 * `-` imports nothing (the runtime's own start). Median of ROUNDS processes (default 3).
 *
 *   bun bench/profile/import-rss.ts - wire/codecs.ts node:http @agentd/sdk/mcp+@agentd/sdk/transport
 */
import { join } from "node:path";

const SDK_DIR = join(import.meta.dir, "..", "..", "packages", "sdk");
const rounds = Number(process.env.ROUNDS ?? 3);

/** The module specifier `bun -e` imports for one `+`-separated part. */
const specifier = (m: string) => (m.startsWith("@") || m.startsWith("node:") || !m.includes("/") ? m : join(SDK_DIR, "src", m));

for (const spec of process.argv.slice(2)) {
  const mods = spec === "-" ? [] : spec.split("+").map(specifier);
  const code = `${mods.map((m) => `await import(${JSON.stringify(m)});`).join("")}
let last = Infinity;
for (let i = 0; i < 10; i++) {
  Bun.gc(true);
  await Bun.sleep(20);
  const now = Number(/VmRSS:\\s+(\\d+)/.exec(require("node:fs").readFileSync("/proc/self/status", "utf8"))[1]);
  if (last - now < 256) { last = Math.min(last, now); break; }
  last = now;
}
console.log(last);`;
  const kb: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const p = Bun.spawnSync([process.execPath, "-e", code], { cwd: SDK_DIR, stderr: "inherit" });
    kb.push(Number(p.stdout.toString().trim()));
  }
  kb.sort((a, b) => a - b);
  console.log(JSON.stringify({ modules: spec, rssMb: +((kb[Math.floor(kb.length / 2)] ?? 0) / 1024).toFixed(1) }));
}
