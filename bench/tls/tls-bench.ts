/**
 * Benchmark 7, TLS: Streamable HTTP tools/call requests/s over HTTPS against a bare `Bun.serve` with the
 * same certificate, and mutual TLS (client certificate required) against plain TLS. Every server and the
 * load generator (bench/tls/https-load.ts, Bun's fetch) run in processes of their own.
 */
import { join } from "node:path";
import type { BenchResult, FigureSpec, Mode } from "../lib/figures.ts";
import { finishFigures } from "../lib/figures.ts";
import { BENCH_DIR, BUN, runToEnd, startChild, withRaisedFdLimit } from "../lib/proc.ts";
import { makeCerts, type BenchCerts } from "./certs.ts";

const SIZES: Record<Mode, { repeats: number; seconds: number; warmup: number; connections: number }> = {
  full: { repeats: 3, seconds: 3, warmup: 1, connections: 16 },
  quick: { repeats: 3, seconds: 2, warmup: 0.5, connections: 16 },
  tiny: { repeats: 1, seconds: 0.5, warmup: 0, connections: 2 },
};

const SUBJECTS = [
  { id: "tls.ours", server: "agentd-http-server.ts", mtls: false, subject: "agentd createStreamableHttpServer, HTTPS" },
  { id: "tls.floor", server: "bun-floor.ts", mtls: false, subject: "floor: bare Bun.serve JSON echo, HTTPS, same certificate" },
  { id: "mtls.ours", server: "agentd-http-server.ts", mtls: true, subject: "agentd createStreamableHttpServer, mutual TLS" },
  { id: "mtls.floor", server: "bun-floor.ts", mtls: true, subject: "floor: bare Bun.serve JSON echo, mutual TLS (requestCert)" },
] as const;

/** One load run against a fresh server process: answered requests per second. */
async function measure(s: (typeof SUBJECTS)[number], certs: BenchCerts, size: (typeof SIZES)[Mode]): Promise<number> {
  const tlsEnv: Record<string, string> = {
    BENCH_TLS_CERT: certs.cert,
    BENCH_TLS_KEY: certs.key,
    ...(s.mtls ? { BENCH_TLS_CA: certs.ca } : {}),
  };
  const server = startChild(withRaisedFdLimit([BUN, join(BENCH_DIR, "http", "servers", s.server), "json", "1024"]), { env: tlsEnv });
  try {
    const { port } = await server.next<{ port: number }>(30_000);
    const clientEnv: Record<string, string> = {
      BENCH_CA: certs.ca,
      ...(s.mtls ? { BENCH_CLIENT_CERT: certs.clientCert, BENCH_CLIENT_KEY: certs.clientKey } : {}),
    };
    const load = async (seconds: number) => {
      const argv = [
        BUN,
        join(BENCH_DIR, "tls", "https-load.ts"),
        `https://127.0.0.1:${port}/mcp`,
        String(size.connections),
        String(Math.round(seconds * 1000)),
        s.id.endsWith("ours") ? "session" : "none",
      ];
      const r = await runToEnd(argv, { env: clientEnv, timeoutMs: (seconds + 60) * 1000 });
      if (r.code !== 0) throw new Error(`${s.id}: load generator failed: ${r.stderr.slice(-1000)}`);
      const out = JSON.parse(r.stdout.trim().split("\n").at(-1) as string) as { rps: number; errors: number };
      if (out.errors > 0) throw new Error(`${s.id}: ${out.errors} requests failed`);
      return out.rps;
    };
    if (size.warmup > 0) await load(size.warmup);
    return await load(size.seconds);
  } finally {
    await server.stop();
  }
}

/** Run the TLS benchmark. */
export async function runTls(mode: Mode, log: (line: string) => void = () => {}): Promise<BenchResult> {
  const started = performance.now();
  const size = SIZES[mode];
  const certs = await makeCerts();
  const rps = new Map<string, number[]>(SUBJECTS.map((s) => [s.id, []]));
  try {
    for (let r = 0; r < size.repeats; r++) {
      for (const s of SUBJECTS) {
        log(`tls: ${s.id} run ${r + 1}/${size.repeats}`);
        rps.get(s.id)?.push(await measure(s, certs, size));
      }
    }
  } finally {
    certs.dispose();
  }
  const group = (mtls: boolean) => `tools/call over ${mtls ? "mutual TLS" : "HTTPS"}, ${size.connections} connections, JSON responses`;
  const specs: FigureSpec[] = SUBJECTS.map((s) => {
    const spec: FigureSpec = {
      id: s.id,
      group: group(s.mtls),
      subject: s.subject,
      metric: "requests/s",
      unit: "req/s",
      better: "higher",
      runs: rps.get(s.id) ?? [],
    };
    if (s.id === "tls.ours") spec.floor = "tls.floor";
    if (s.id === "mtls.ours") {
      spec.floor = "mtls.floor";
      spec.peer = "tls.ours"; // "vs peer" here: mutual TLS against agentd's own plain TLS
    }
    return spec;
  });
  return {
    bench: "tls",
    mode,
    command: `bun bench/run.ts tls${mode === "quick" ? " --quick" : ""}`,
    seconds: (performance.now() - started) / 1000,
    figures: finishFigures("tls", specs),
    notes: [
      `Certificates: a CA, a server certificate for 127.0.0.1 and a client certificate (EC P-256), made with openssl for the run; the same files for every subject. ${size.repeats} interleaved repeats, a fresh server process per run, ${size.seconds} s per run after ${size.warmup} s of warm-up.`,
      "Load: bench/tls/https-load.ts — closed loops on Bun's fetch (keep-alive), one per connection; against agentd each loop opens its own session first. Only 200 answers with a result count.",
      'In the mutual-TLS row, "vs peer" is agentd with mutual TLS against agentd with plain TLS: agentd terminates mutual TLS in a node:tls front (Bun.serve cannot show the client certificate to the handler), the floor in Bun.serve itself (requestCert).',
    ],
  };
}
