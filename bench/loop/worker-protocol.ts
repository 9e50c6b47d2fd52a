/**
 * The loop worker's side of the protocol with the benchmark (Bun or Node): warm up, say `{"ready":true}`,
 * wait for `go` on stdin, time each run, print `{"walls":[ms...]}`.
 */

/** What a framework adapter gives the worker. */
export interface LoopRunner {
  /** One whole run of the instruction; rejects unless it ends with the script's final answer. */
  run(): Promise<void>;
  close(): Promise<void>;
}

function nextStdinLine(): Promise<string> {
  return new Promise((resolve) => {
    let buf = "";
    const onData = (d: Buffer | string) => {
      buf += d.toString();
      const nl = buf.indexOf("\n");
      if (nl < 0) return;
      process.stdin.off("data", onData);
      process.stdin.pause();
      resolve(buf.slice(0, nl).trim());
    };
    process.stdin.on("data", onData);
    process.stdin.resume();
  });
}

/** Drive `runner`: `warmups` untimed runs, then `runs` timed ones. */
export async function serveLoopWorker(runner: LoopRunner, warmups: number, runs: number): Promise<void> {
  try {
    for (let i = 0; i < warmups; i++) await runner.run();
    process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
    await nextStdinLine();
    const walls: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      await runner.run();
      walls.push(performance.now() - t0);
    }
    process.stdout.write(`${JSON.stringify({ walls })}\n`);
  } finally {
    await runner.close();
  }
  process.exit(0);
}
