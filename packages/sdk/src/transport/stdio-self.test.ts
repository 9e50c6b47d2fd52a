import { afterEach, describe, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { DEFAULT_MAX_FRAME_BYTES } from "./types.ts";
import { StreamTransport } from "./stdio-streams.ts";
import { runTransportCases, type TransportPair } from "./__fixtures__/transport.case.ts";

const RELAY = join(import.meta.dir, "__fixtures__", "relay.ts");
const PROCESS_TEST_TIMEOUT = 30_000;
const note = (method: string, params: Record<string, unknown> = {}) => ({ jsonrpc: "2.0" as const, method, params });

/** A loopback TCP listener on an ephemeral port, handing out accepted sockets. */
async function listen(): Promise<{ port: number; next(): Promise<Socket>; stop(): Promise<void> }> {
  const server: Server = createServer();
  const sockets: Socket[] = [];
  server.on("connection", (s) => sockets.push(s));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as { port: number }).port,
    next: () =>
      new Promise((resolve) => {
        const s = sockets.shift();
        if (s) resolve(s);
        else server.once("connection", () => resolve(sockets.shift()!));
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Processes spawned by a test; killed by pid afterwards if still running. */
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      const gone = new Promise((r) => c.once("exit", r));
      c.kill("SIGKILL");
      await gone;
    }
  }
}, PROCESS_TEST_TIMEOUT);

/** Spawn the relay fixture on raw pipes (no StdioChildTransport), connected back to `port`. */
function spawnRelay(port: number, ...flags: string[]) {
  const child = spawn(process.execPath, [RELAY, String(port), ...flags], { stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let stderr = "";
  const stderrWaiters: Array<() => void> = [];
  child.stderr!.on("data", (b: Buffer) => {
    stderr += b.toString();
    for (const w of stderrWaiters.splice(0)) w();
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const stderrIncludes = (text: string) =>
    new Promise<void>((resolve) => {
      const check = () => (stderr.includes(text) ? resolve() : stderrWaiters.push(check));
      check();
    });
  return { child, exited, stderrIncludes, stderr: () => stderr };
}

runTransportCases("StreamTransport over a loopback socket pair", async () => {
  const l = await listen();
  const { connect } = await import("node:net");
  const client = connect(l.port, "127.0.0.1");
  const server = await l.next();
  const a = new StreamTransport(client, client);
  const b = new StreamTransport(server, server);
  await a.start();
  await b.start();
  return { a, b, cleanup: async () => (await a.close(), await b.close(), await l.stop()) };
});

runTransportCases("StreamTransport over web streams", async () => {
  const ab = new TransformStream<Uint8Array, Uint8Array>();
  const ba = new TransformStream<Uint8Array, Uint8Array>();
  const a = new StreamTransport(ba.readable, ab.writable);
  const b = new StreamTransport(ab.readable, ba.writable);
  await a.start();
  await b.start();
  return { a, b, cleanup: async () => (await a.close(), await b.close()) };
});

runTransportCases("StdioServerTransport in a child, over raw pipes", async (): Promise<TransportPair> => {
  const l = await listen();
  const relay = spawnRelay(l.port);
  const a = new StreamTransport(relay.child.stdout!, relay.child.stdin!);
  await a.start();
  const early = relay.exited.then((e) => Promise.reject(new Error(`relay exited before connecting: ${JSON.stringify(e)}`)));
  const socket = await Promise.race([l.next(), early]);
  const b = new StreamTransport(socket, socket);
  await b.start();
  return { a, b, cleanup: async () => (await a.close(), await b.close(), await l.stop()) };
});

describe("StdioServerTransport", () => {
  test(
    "the peer closing stdin closes the transport and the process exits by itself (code 0)",
    async () => {
      const l = await listen();
      const relay = spawnRelay(l.port);
      const socket = await l.next();
      const b = new StreamTransport(socket, socket);
      const bClosed = new Promise<void>((r) => (b.onclose = r));
      await b.start();
      relay.child.stdin!.end();
      await bClosed;
      expect(await relay.exited).toEqual({ code: 0, signal: null });
      await l.stop();
    },
    PROCESS_TEST_TIMEOUT,
  );

  test(
    "console.log goes to stderr while serving, so stdout stays protocol only",
    async () => {
      const l = await listen();
      const relay = spawnRelay(l.port, "--noise");
      const socket = await l.next();
      const b = new StreamTransport(socket, socket);
      await b.start();
      const a = new StreamTransport(relay.child.stdout!, relay.child.stdin!);
      const frameErrors: string[] = [];
      a.onframeerror = (e) => frameErrors.push(e.error.message);
      const got = new Promise<unknown>((r) => (a.onmessage = r));
      await a.start();
      await relay.stderrIncludes("relay: console.log noise");
      await b.send(note("after-noise"));
      expect(await got).toEqual(note("after-noise"));
      expect(frameErrors).toEqual([]);
      await a.close();
      expect(await relay.exited).toEqual({ code: 0, signal: null });
      await b.close();
      await l.stop();
    },
    PROCESS_TEST_TIMEOUT,
  );
});

describe("StreamTransport", () => {
  test("an oversized frame is reported as a recoverable frame error and the stream carries on", async () => {
    const ab = new TransformStream<Uint8Array, Uint8Array>();
    const t = new StreamTransport(ab.readable, new WritableStream(), { maxFrameBytes: 64 });
    const errors: Array<{ code: number; recoverable: boolean }> = [];
    const messages: unknown[] = [];
    const second = new Promise<void>((resolve) => {
      t.onmessage = (m) => {
        messages.push(m);
        if (messages.length === 2) resolve();
      };
    });
    t.onframeerror = (e) => errors.push({ code: e.error.code, recoverable: e.recoverable });
    await t.start();
    const w = ab.writable.getWriter();
    await w.write(new TextEncoder().encode(`[1]\n"${"x".repeat(100)}"\nnot json\n[2]\n`));
    await second;
    expect(messages).toEqual([[1], [2]]);
    expect(errors).toEqual([
      { code: -32600, recoverable: true },
      { code: -32700, recoverable: true },
    ]);
    await t.close();
  });

  test("a throwing onmessage handler is reported and does not stop later messages", async () => {
    const ab = new TransformStream<Uint8Array, Uint8Array>();
    const t = new StreamTransport(ab.readable, new WritableStream());
    const seen: unknown[] = [];
    const errors: string[] = [];
    const done = new Promise<void>((resolve) => {
      t.onmessage = (m) => {
        seen.push(m);
        if (seen.length === 1) throw new Error("handler bug");
        resolve();
      };
    });
    t.onerror = (e) => errors.push(e.message);
    await t.start();
    await ab.writable.getWriter().write(new TextEncoder().encode("[1]\n[2]\n"));
    await done;
    expect(seen).toEqual([[1], [2]]);
    expect(errors).toEqual(["handler bug"]);
    await t.close();
  });

  test("without options, frames up to DEFAULT_MAX_FRAME_BYTES pass and longer ones do not", async () => {
    const ab = new TransformStream<Uint8Array, Uint8Array>();
    const t = new StreamTransport(ab.readable, new WritableStream());
    const lengths: number[] = [];
    const errors: number[] = [];
    const done = new Promise<void>((resolve) => {
      t.onmessage = (m) => {
        lengths.push((m as string).length);
        if (m === "end") resolve();
      };
    });
    t.onframeerror = (e) => errors.push(e.error.code);
    await t.start();
    const w = ab.writable.getWriter();
    const frame = (bytes: number) => new TextEncoder().encode(`"${"x".repeat(bytes - 2)}"\n`);
    await w.write(frame(DEFAULT_MAX_FRAME_BYTES));
    await w.write(frame(DEFAULT_MAX_FRAME_BYTES + 1));
    await w.write(new TextEncoder().encode('"end"\n'));
    await done;
    expect(lengths).toEqual([DEFAULT_MAX_FRAME_BYTES - 2, 3]);
    expect(errors).toEqual([-32600]);
    await t.close();
  });
});
