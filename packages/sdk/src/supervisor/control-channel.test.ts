/**
 * The control channel over a real pipe: a child process (the echo peer) on fd 3, length-prefixed JSON-RPC
 * both ways, large frames, many requests in flight, error answers, and the end of the child.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { AgentdError, McpError } from "../wire/errors.ts";
import { ControlChannel, type ControlChannelOptions } from "./control-channel.ts";
import { streamControlIO } from "./control-pipe.ts";

const PEER = resolve(import.meta.dir, "__fixtures__/echo-peer.ts");
let child: ChildProcess | undefined;

afterEach(() => {
  if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(child.pid, "SIGKILL");
  child = undefined;
});

function startPeer(options: Omit<ControlChannelOptions, "maxFrameBytes"> & { maxFrameBytes?: number } = {}) {
  child = spawn(process.execPath, [PEER], { stdio: ["ignore", "ignore", "inherit", "pipe"] });
  const exited = new Promise<number | null>((r) => child?.once("exit", (code) => r(code)));
  const socket = child.stdio[3] as any;
  const channel = new ControlChannel(streamControlIO(socket, socket), { maxFrameBytes: 8 * 1024 * 1024, ...options });
  return { channel, exited, socket };
}

describe("control channel over a real pipe", () => {
  test("a request gets its answer; notifications flow both ways", async () => {
    const seen: Array<{ method: string; params: Record<string, unknown> }> = [];
    let gotSeen!: () => void;
    const seenOne = new Promise<void>((r) => (gotSeen = r));
    const { channel } = startPeer({
      onNotification: (method, params) => {
        seen.push({ method, params });
        if (method === "seen") gotSeen();
      },
    });
    expect(await channel.request("echo", { hello: "world", n: [1, 2, 3] })).toEqual({ hello: "world", n: [1, 2, 3] });
    expect(await channel.request("notify-me", { n: 3 })).toEqual({ sent: 3 });
    // Notifications sent before the answer arrive before it.
    expect(seen.filter((s) => s.method === "tick").map((s) => s.params.i)).toEqual([0, 1, 2]);
    channel.notify("cancel", { reason: "test" });
    await seenOne;
    expect(seen.find((s) => s.method === "seen")?.params).toEqual({ method: "cancel", params: { reason: "test" } });
    channel.close();
  });

  test("a 3 MiB frame crosses the pipe intact (split across many reads)", async () => {
    const { channel } = startPeer();
    const big = `${"x".repeat(3 * 1024 * 1024)}é✓`;
    const back = await channel.request("echo", { big });
    expect(back.big).toBe(big);
    channel.close();
  });

  test("many requests in flight are matched to their answers", async () => {
    const { channel } = startPeer();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => channel.request("echo", { i })));
    expect(answers.map((a) => a.i)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    channel.close();
  });

  test("an error answer rejects with the McpError and its data", async () => {
    const { channel } = startPeer();
    const error = await channel.request("fail", {}).catch((e) => e);
    expect(McpError.isInstance(error)).toBe(true);
    expect(error.code).toBe(-32010);
    expect(error.data).toEqual({ code: "E_RUN_FAILED" });
    channel.close();
  });

  test("the peer exiting closes the channel and rejects what is pending", async () => {
    let closedWith: string | undefined;
    const { channel, exited } = startPeer({ onClose: (r) => (closedWith = r) });
    const error = await channel.request("exit", {}).catch((e) => e);
    expect(AgentdError.isInstance(error) && error.code).toBe("E_CONNECTION_CLOSED");
    expect(closedWith).toContain("closed by the peer");
    expect(await exited).toBe(7);
    expect(await channel.request("echo", {}).catch((e) => e.code)).toBe("E_CONNECTION_CLOSED");
  });

  test("our end closing ends the peer (it never outlives the channel)", async () => {
    const { channel, exited } = startPeer();
    await channel.request("echo", {});
    channel.close();
    expect(await exited).toBe(0);
  });

  test("a frame over the limit: refused when sending, and breaks the channel when received", async () => {
    let closedWith: string | undefined;
    const { channel } = startPeer({ maxFrameBytes: 1024, onClose: (r) => (closedWith = r) });
    // Our encoder refuses to send an over-limit frame: that request fails locally, the channel stays up.
    const refused = await channel.request("echo", { big: "y".repeat(4096) }).catch((e) => e);
    expect(AgentdError.isInstance(refused) && refused.code).toBe("E_FRAME_TOO_LARGE");
    expect(await channel.request("echo", { ok: 1 })).toEqual({ ok: 1 });
    // The peer answers with a frame over our limit: the stream is no longer trusted.
    const broken = await channel.request("big", { n: 4096 }).catch((e) => e);
    expect(AgentdError.isInstance(broken) && broken.code).toBe("E_CONNECTION_CLOSED");
    expect(closedWith).toContain("exceeds the 1024-byte limit");
  });
});
