/**
 * Benchmark 3, Streamable HTTP serving: tools/call requests per second with 64 concurrent connections in
 * JSON and SSE response modes — agentd's server against the official SDK's web-standard transport under
 * Bun.serve and its Node transport under Node, with a bare Bun.serve JSON echo as the floor; and resident
 * memory with 1,000 and 10,000 idle sessions each holding a GET stream open. Beside the floor, measured in
 * the same runs, reference rows that say what the floor itself costs: the bare SSE floor (what an SSE
 * response stream must carry, nothing else) and the floor with the reads a server is required to make, in
 * both modes. agentd is read against them too; the target stays the bare floor.
 */
import type { BenchResult, FigureSpec, Mode } from "../lib/figures.ts";
import { finishFigures } from "../lib/figures.ts";
import { sig } from "../lib/stats.ts";
import type { Reference } from "../lib/figures.ts";
import { SUBJECTS, startCanned, type ServerId } from "./http-servers.ts";
import { drive, ensureLoadGenerator } from "./load.ts";
import { measureMemory, sessionCeiling, type MemoryRun } from "./memory.ts";
import { measureRps } from "./rps.ts";

const SIZES: Record<Mode, { repeats: number; seconds: number; warmup: number; checkpoints: number[]; memRepeats: number }> = {
  full: { repeats: 3, seconds: 3, warmup: 1, checkpoints: [1000, 10_000], memRepeats: 3 },
  quick: { repeats: 3, seconds: 2, warmup: 1, checkpoints: [1000, 10_000], memRepeats: 3 },
  tiny: { repeats: 1, seconds: 1, warmup: 0, checkpoints: [10, 20], memRepeats: 1 },
};
const CONNECTIONS = 64;
const RPS_SERVERS: ServerId[] = ["ours", "sdk", "sdk-node"];
const MEM_SERVERS: ServerId[] = ["ours", "sdk", "sdk-node", "floor"];
/** The floors measured in each repeat, in order: the bare JSON floor first (the target's floor), then the references. */
const FLOORS: ServerId[] = ["floor", "floor-sse", "floor-reads", "floor-reads-sse", "least-mcp", "least-mcp-sse"];
/** Each mode's floor rows: figure id suffix → the floor server measured. */
const FLOOR_ROWS: Record<"json" | "sse", Array<[string, ServerId]>> = {
  json: [
    ["floor", "floor"],
    ["floor-reads", "floor-reads"],
    ["least-mcp", "least-mcp"],
  ],
  sse: [
    ["floor", "floor"],
    ["floor-sse", "floor-sse"],
    ["floor-reads", "floor-reads-sse"],
    ["least-mcp", "least-mcp-sse"],
  ],
};
/** What agentd is read against beside the bare floor, in each mode. */
const REFERENCES: Record<"json" | "sse", Reference[]> = {
  json: [
    { figure: "rps.json.floor-reads", name: "the floor with the required reads" },
    { figure: "rps.json.least-mcp", name: "the least MCP server" },
  ],
  sse: [
    { figure: "rps.sse.floor-sse", name: "the SSE floor" },
    { figure: "rps.sse.floor-reads", name: "the SSE floor with the required reads" },
    { figure: "rps.sse.least-mcp", name: "the least MCP server" },
  ],
};
/** The tiny configuration (the smoke test) runs each code path once, not every server in every mode. */
const inTiny = (mode: Mode, id: ServerId, responseMode: "json" | "sse" | "memory") =>
  mode !== "tiny" || (responseMode === "json" ? id !== "sdk-node" : responseMode === "sse" ? id !== "sdk" : id !== "sdk");

/** Run the HTTP benchmark. */
export async function runHttp(mode: Mode, log: (line: string) => void = () => {}): Promise<BenchResult> {
  const started = performance.now();
  const size = SIZES[mode];
  const gen = await ensureLoadGenerator(log, mode !== "tiny");
  const notes: string[] = [];
  const rps = new Map<string, number[]>();
  const errors: string[] = [];
  const ceiling: number[] = [];
  const o = { connections: CONNECTIONS, seconds: size.seconds, warmupSeconds: size.warmup };
  const push = (key: string, v: number) => rps.set(key, [...(rps.get(key) ?? []), v]);
  for (let rep = 0; rep < size.repeats; rep++) {
    {
      const { child, port } = await startCanned();
      try {
        ceiling.push((await drive(gen, port, CONNECTIONS, size.seconds, [])).rps);
      } finally {
        await child.stop();
      }
    }
    for (const id of FLOORS) {
      log(`http: ${id} run ${rep + 1}/${size.repeats}`);
      const r = await measureRps(gen, id, "json", o);
      if (r.errors > 0) errors.push(`${id}: ${r.errors} errors`);
      push(id, r.rps);
    }
    for (const mode2 of ["json", "sse"] as const) {
      for (const id of RPS_SERVERS) {
        if (!inTiny(mode, id, mode2)) continue;
        log(`http: ${id} ${mode2} run ${rep + 1}/${size.repeats}`);
        const r = await measureRps(gen, id, mode2, o);
        if (r.errors > 0) errors.push(`${id}/${mode2}: ${r.errors} errors`);
        push(`${mode2}.${id}`, r.rps);
      }
    }
  }
  const specs: FigureSpec[] = [];
  for (const m of ["json", "sse"] as const) {
    const group = `tools/call, ${CONNECTIONS} connections, ${m === "json" ? "JSON" : "SSE"} responses`;
    for (const id of RPS_SERVERS) {
      const spec: FigureSpec = {
        id: `rps.${m}.${id}`,
        group,
        subject: SUBJECTS[id],
        metric: "requests/s",
        unit: "req/s",
        better: "higher",
        runs: rps.get(`${m}.${id}`) ?? [],
        floor: `rps.${m}.floor`,
      };
      if (id !== "sdk") spec.peer = `rps.${m}.sdk`;
      if (id === "ours") {
        spec.targets = [
          { text: "≥ 2× the official SDK transport (Bun)", against: "peer", op: ">=", value: 2 },
          { text: "≥ 0.5× the bare Bun.serve floor", against: "floor", op: ">=", value: 0.5 },
          { text: "raised: ≥ 0.8× the bare Bun.serve floor", against: "floor", op: ">=", value: 0.8 },
        ];
        spec.references = REFERENCES[m];
      }
      specs.push(spec);
    }
    for (const [suffix, id] of FLOOR_ROWS[m]) {
      const spec: FigureSpec = {
        id: `rps.${m}.${suffix}`,
        group,
        subject: SUBJECTS[id],
        metric: "requests/s",
        unit: "req/s",
        better: "higher",
        runs: rps.get(id) ?? [],
      };
      // A reference floor is read against the bare floor: what it costs by itself.
      if (suffix !== "floor") spec.floor = `rps.${m}.floor`;
      if (suffix === "floor-reads" && m === "sse") spec.references = [{ figure: "rps.sse.floor-sse", name: "the SSE floor" }];
      specs.push(spec);
    }
  }
  specs.push({
    id: "rps.ceiling",
    group: "load generator ceiling",
    subject: `${gen.describe} against a canned-response TCP server`,
    metric: "requests/s",
    unit: "req/s",
    better: "higher",
    runs: ceiling,
  });

  // Memory: bounded by the file-descriptor limit (each session holds one socket on each side).
  const limit = await sessionCeiling();
  const checkpoints = size.checkpoints.filter((c) => c <= limit);
  if (checkpoints.length < size.checkpoints.length)
    notes.push(`The file-descriptor limit (${limit + 200}) allowed only ${checkpoints.join(", ")} idle sessions.`);
  const mem = new Map<ServerId, MemoryRun[]>();
  for (let rep = 0; rep < size.memRepeats; rep++) {
    for (const id of MEM_SERVERS) {
      if (!inTiny(mode, id, "memory")) continue;
      log(`http: memory ${id} run ${rep + 1}/${size.memRepeats}`);
      mem.set(id, [...(mem.get(id) ?? []), await measureMemory(id, checkpoints)]);
    }
  }
  const memSubject = (id: ServerId) =>
    id === "floor" ? "floor: bare Bun.serve holding the same connections and GET streams" : SUBJECTS[id];
  const memGroups = [{ key: "start", label: "RSS at start, after GC (0 sessions)", pick: (r: MemoryRun) => r.startMb }].concat(
    checkpoints.map((c, i) => ({
      key: String(c),
      label: `RSS with ${c.toLocaleString("en")} idle sessions, GET stream open each`,
      pick: (r: MemoryRun) => r.atMb[i] as number,
    })),
  );
  for (const g of memGroups) {
    for (const id of MEM_SERVERS) {
      const spec: FigureSpec = {
        id: `mem.${g.key}.${id}`,
        group: g.label,
        subject: memSubject(id),
        metric: "RSS",
        unit: "MB",
        better: "lower",
        runs: (mem.get(id) ?? []).map(g.pick),
      };
      if (id !== "floor") spec.floor = `mem.${g.key}.floor`;
      if (id !== "sdk" && id !== "floor") spec.peer = `mem.${g.key}.sdk`;
      if (id === "ours" && g.key === "10000")
        spec.targets = [
          { text: "≤ 120 MB", against: "value", op: "<=", value: 120 },
          { text: "raised: ≤ 1.15× the bare floor measured in the same run", against: "floor", op: "<=", value: 1.15 },
        ];
      specs.push(spec);
    }
  }
  const last = checkpoints.at(-1);
  if (last !== undefined) {
    const perSession = MEM_SERVERS.map((id) => {
      const runs = mem.get(id) ?? [];
      const kb = runs.map((r) => (((r.atMb.at(-1) as number) - r.startMb) * 1024) / last).sort((a, b) => a - b)[runs.length >> 1] ?? 0;
      const secs = runs.map((r) => r.openSeconds.at(-1) as number).sort((a, b) => a - b)[runs.length >> 1] ?? 0;
      return `${id}: ${sig(kb)} kB per session, ${last.toLocaleString("en")} opened in ${sig(secs)} s`;
    });
    notes.push(`Idle-session cost (median, RSS growth over start / sessions): ${perSession.join("; ")}.`);
  }
  notes.push(
    `Load: ${gen.describe}, ${CONNECTIONS} connections, ${size.seconds} s per run after a ${size.warmup} s warm-up, a fresh server process per run. ${CONNECTIONS} sessions are initialized beforehand (initialize + notifications/initialized, each checked with one echo call) and requests go round-robin over them (bench/http/tools-call.lua); wrk's threads number JSON-RPC ids from disjoint ranges.`,
    "Reference floors, measured in every repeat right after the bare JSON floor (which stays the floor of the targets): the SSE floor (bench/http/servers/bun-floor.ts sse) answers the echo as text/event-stream with only what the 2025-11-25 transport asks of a POST's SSE stream — a priming event (an id and empty data), the response event with its id, the end of the stream — as one string body; the floor with the required reads (bench/http/servers/floor-reads.ts json|sse) also reads what any server must before its own logic (the path; Host, Origin, Accept, Content-Type, Content-Length, Mcp-Session-Id, MCP-Protocol-Version; the body as bytes with a strict UTF-8 check), answers at the end of the turn and sends the session id header, with sessions as agentd's; the least MCP server (bench/http/servers/least-mcp.ts json|sse) is the floor with the reads doing, the cheapest way, what an MCP server must do per tools/call (the JSON-RPC envelope, the session and its revision, the tool's name and arguments) and the protections agentd keeps (requests in flight tracked, a body deadline, a nesting bound; in SSE mode the answer's events kept for resumption): what 0.8× the bare floor leaves for a server's own design. The floors' own ratios (vs floor) are their cost; agentd's row gives its ratio to each reference in brackets.",
    "The SDK under Bun.serve gets a one-comment prefix on GET streams: Bun sends no headers before the first body byte, and the SDK writes none until it has a message (see bench/http/servers/sdk-bun-server.ts).",
    "Memory: each server in its own process; a separate client process opens the sessions (one keep-alive socket each: initialize, initialized, then GET left open); RSS from /proc/PID/status after a forced full GC in the server, re-read after another GC every 250 ms while it still falls by more than 0.5 MB (at most 3 s): the settled figure a long-running server holds, measured alike for every subject.",
  );
  if (errors.length) notes.push(`Errors during load runs (answered requests only are counted): ${errors.join("; ")}.`);
  return {
    bench: "http",
    mode,
    command: `bun bench/run.ts http${mode === "quick" ? " --quick" : ""}`,
    seconds: (performance.now() - started) / 1000,
    figures: finishFigures("http", specs),
    notes,
  };
}
