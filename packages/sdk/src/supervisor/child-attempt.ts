/**
 * One attempt of a subagent: a child process of the same program, with the control channel on fd 3.
 * It sends `start`, relays `progress`, and ends one of three ways: the child answered (a result), the child
 * answered with an error (a failure it reported itself), or it died without answering (a crash: non-zero
 * exit, a signal, or a broken channel). Stopping is graded: `cancel` over the channel, then SIGTERM, then
 * SIGKILL, each after part of the grace period.
 */
import type { ChildProcess } from "node:child_process";
import { nodeChildProcess } from "../_internal/node-builtins.ts";
import { setLongTimeout } from "../_internal/timer.ts";
import type { Logger } from "../log.ts";
import { killOnOurDeath } from "../transport/_death-watch.ts";
import { McpError } from "../wire/errors.ts";
import { ControlChannel } from "./control-channel.ts";
import { streamControlIO } from "./control-pipe.ts";
import {
  CONTROL,
  childErrorData,
  isChildResult,
  isProgressParams,
  type ChildErrorData,
  type ChildResult,
  type ProgressParams,
  type StartParams,
} from "./control-protocol.ts";

/** How an attempt ended. */
export type AttemptEnd =
  | { kind: "result"; result: ChildResult }
  | { kind: "error"; message: string; data: ChildErrorData }
  | { kind: "crash"; reason: string };

/** How to start a child. */
export interface ChildCommand {
  command: string;
  args: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Where the child's stderr goes: inherited, or handed over line by line. */
  stderr?: "inherit" | ((line: string) => void);
}

/** Whether `p` settles within `ms` (false when the time ran out first). */
export const within = (p: Promise<unknown>, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    // The stop grace comes from configuration: a long one must not overflow setTimeout and end at once.
    const cancel = setLongTimeout(() => resolve(false), ms);
    p.then(
      () => (cancel(), resolve(true)),
      () => (cancel(), resolve(true)),
    );
  });

/** How long after its channel broke a child may take to exit before it is killed (ms). */
const BROKEN_CHANNEL_EXIT_MS = 1_000;

/** A running attempt. */
export class ChildAttempt {
  readonly pid: number | undefined;
  /** Settles when the child answered `start` or died without answering. Never rejects. */
  readonly ended: Promise<AttemptEnd>;
  /** Settles when the process has exited. Never rejects. */
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  /** The last progress the child reported. */
  lastProgress: ProgressParams | undefined;
  private readonly child: ChildProcess;
  private readonly channel: ControlChannel | undefined;
  private exitInfo: { code: number | null; signal: string | null } | undefined;

  constructor(cmd: ChildCommand, start: StartParams, onProgress: (p: ProgressParams) => void, logger: Logger) {
    const env: Record<string, string> = {};
    for (const [k, val] of Object.entries({ ...process.env, ...cmd.env })) if (val !== undefined) env[k] = val;
    const stderr = cmd.stderr ?? "inherit";
    // `node:child_process` loads at the first subagent, not with the supervisor (a one-shot run never spawns one).
    this.child = nodeChildProcess().spawn(cmd.command, cmd.args, {
      stdio: ["ignore", "ignore", stderr === "inherit" ? "inherit" : "pipe", "pipe"],
      env,
      cwd: cmd.cwd || undefined,
    });
    this.pid = this.child.pid;
    // Killed outright, we take the child with us (it then takes its MCP servers: it has a watchdog too).
    const guard = this.pid === undefined ? undefined : killOnOurDeath({ pid: this.pid });
    let spawnError: Error | undefined;
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        guard?.release();
        this.exitInfo = { code, signal };
        resolve(this.exitInfo);
      });
      this.child.once("error", (e) => {
        spawnError = e;
        // A child that never started never exits: settle here.
        if (this.child.pid === undefined) resolve({ code: null, signal: null });
      });
    });
    if (typeof stderr === "function" && this.child.stderr) forwardLines(this.child.stderr, stderr);

    const socket = this.child.stdio[3] as unknown as Parameters<typeof streamControlIO>[0] & Parameters<typeof streamControlIO>[1];
    let answered: AttemptEnd | undefined;
    let channelBroken: string | undefined;
    let onBroken: () => void = () => {};
    const broken = new Promise<void>((r) => (onBroken = r));
    this.channel = socket
      ? new ControlChannel(streamControlIO(socket, socket), {
          onNotification: (method, params) => {
            if (method !== CONTROL.progress || !isProgressParams(params)) return;
            this.lastProgress = params;
            onProgress(params);
          },
          onClose: (reason) => {
            channelBroken = reason;
            onBroken();
          },
        })
      : undefined;

    const answer: Promise<AttemptEnd> = this.channel
      ? this.channel.request(CONTROL.start, start as unknown as Record<string, unknown>).then(
          (result): AttemptEnd =>
            isChildResult(result)
              ? { kind: "result", result }
              : { kind: "crash", reason: "the child answered start with a malformed result" },
          (e): AttemptEnd | Promise<AttemptEnd> => {
            if (McpError.isInstance(e)) return { kind: "error", message: e.message, data: childErrorData(e.data) };
            return new Promise<never>(() => {}); // the channel closed: decided by exit/broken below
          },
        )
      : new Promise<never>(() => {});
    answer.then((a) => (answered = a));

    this.ended = Promise.race([
      answer,
      this.exited.then(async () => {
        // The answer (or a last progress) may still be in the pipe when the exit is seen: read up to the
        // end of the stream, which comes right after the data.
        await within(Promise.race([answer, broken]), 2_000);
        return answered ?? { kind: "crash" as const, reason: this.crashReason(spawnError) };
      }),
      broken.then(async () => {
        await within(answer, 50);
        if (answered) return answered;
        // A channel that broke while the process lives on is a crash too: stop the process.
        if (!(await within(this.exited, BROKEN_CHANNEL_EXIT_MS))) this.signal("SIGKILL");
        await this.exited;
        return answered ?? { kind: "crash" as const, reason: this.crashReason(spawnError, channelBroken) };
      }),
    ]);
    logger.debug("subagent.process", { id: start.id, pid: this.pid, attempt: start.attempt });
  }

  /** Whether the process has exited. */
  get hasExited(): boolean {
    return this.exitInfo !== undefined || this.child.pid === undefined;
  }

  /**
   * Stop the child: `cancel` over the channel, SIGTERM after half the grace, SIGKILL at the end of it.
   * Resolves once the process has exited.
   */
  async stop(reason: string, graceMs: number): Promise<void> {
    if (this.hasExited) return;
    this.channel?.notify(CONTROL.cancel, { reason });
    if (await within(this.exited, graceMs / 2)) return;
    this.signal("SIGTERM");
    if (await within(this.exited, graceMs / 2)) return;
    this.signal("SIGKILL");
    await this.exited;
  }

  /** Close our end of the channel once the attempt is over. */
  release(): void {
    this.channel?.close("attempt over");
  }

  private signal(sig: NodeJS.Signals): void {
    if (this.hasExited) return;
    try {
      this.child.kill(sig);
    } catch {
      // Already gone.
    }
  }

  private crashReason(spawnError: Error | undefined, channel?: string): string {
    if (spawnError && this.child.pid === undefined) return `the child could not be started: ${spawnError.message}`;
    const exit = this.exitInfo;
    if (!exit) return channel ?? "the control channel broke";
    if (exit.signal) return `killed by signal ${exit.signal}${channel ? ` (${channel})` : ""}`;
    return `exited with code ${exit.code} without an answer`;
  }
}

/** Hand a stream's text over line by line (whole lines only, so JSON log lines stay intact). */
function forwardLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let rest = "";
  stream.setEncoding?.("utf8");
  stream.on("data", (chunk: string) => {
    rest += chunk;
    let nl = rest.indexOf("\n");
    while (nl >= 0) {
      onLine(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
      nl = rest.indexOf("\n");
    }
  });
  stream.on("end", () => {
    if (rest) onLine(rest);
    rest = "";
  });
}
