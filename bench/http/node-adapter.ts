/**
 * Serving MCP over HTTP from Node: tools/call requests per second with 64 connections, JSON and SSE response
 * modes, for agentd's server with its Node adapter under Node 20 beside the official SDK's Node transport
 * under node:http (Node 20), with agentd under Bun (the Bun adapter) for reference. Same servers, sessions,
 * load generator and wrk script as the http benchmark; a fresh server process per run.
 *
 *   bun bench/http/node-adapter.ts [--quick]     # prints a markdown table
 */
import { spread } from "../lib/stats.ts";
import { SUBJECTS, type ServerId } from "./http-servers.ts";
import { ensureLoadGenerator } from "./load.ts";
import { measureRps } from "./rps.ts";

const quick = process.argv.includes("--quick");
const o = { connections: 64, seconds: quick ? 2 : 3, warmupSeconds: 1 };
const repeats = 3;
const SERVERS: ServerId[] = ["ours-node", "sdk-node", "ours"];

const gen = await ensureLoadGenerator((line) => console.error(line));
const runs = new Map<string, number[]>();
const errors: string[] = [];
for (let rep = 0; rep < repeats; rep++)
  for (const mode of ["json", "sse"] as const)
    for (const id of SERVERS) {
      console.error(`node-adapter: ${id} ${mode} run ${rep + 1}/${repeats}`);
      const r = await measureRps(gen, id, mode, o);
      if (r.errors > 0) errors.push(`${id}/${mode}: ${r.errors} errors`);
      runs.set(`${mode}.${id}`, [...(runs.get(`${mode}.${id}`) ?? []), r.rps]);
    }

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
const lines = [
  `Load: ${gen.describe}, ${o.connections} connections, ${o.seconds} s per run after a ${o.warmupSeconds} s warm-up, ${repeats} runs each (median, range).`,
  "",
  "| response mode | subject | tools/call req/s | range | vs official SDK (Node) |",
  "|---|---|---|---|---|",
];
for (const mode of ["json", "sse"] as const) {
  const sdk = spread(runs.get(`${mode}.sdk-node`)!).median;
  for (const id of SERVERS) {
    const s = spread(runs.get(`${mode}.${id}`)!);
    lines.push(
      `| ${mode.toUpperCase()} | ${SUBJECTS[id]} | ${fmt(s.median)} | ${fmt(s.min)} – ${fmt(s.max)} | ${(s.median / sdk).toFixed(2)}× |`,
    );
  }
}
if (errors.length) lines.push("", `Errors: ${errors.join("; ")}`);
console.log(lines.join("\n"));
