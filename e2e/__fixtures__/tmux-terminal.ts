/**
 * A real pseudo-terminal for CLI tests: a command run in a private tmux server (its own socket name, so no
 * one else's sessions are touched), keys sent with `send-keys`, the screen read with `capture-pane`, and the
 * command's end signalled through `tmux wait-for` (no polling for the exit). `kill()` ends the private
 * server and with it everything it started.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Whether tmux is installed (tests that need it are skipped otherwise). */
export const tmuxAvailable = Bun.which("tmux") !== null;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** One command running in a terminal. */
export class TmuxTerminal {
  private readonly socket = `agentd-test-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  private readonly done: Promise<number>;
  private readonly codeFile: string;
  private readonly waiter: ReturnType<typeof Bun.spawn>;

  /**
   * Run `argv` in `cwd` with exactly `env`, stdout to `stdoutFile` (without one, stdout is the terminal too);
   * stdin and stderr are the terminal.
   * `recordFile` receives every byte written to the terminal (control sequences included), from the start.
   */
  constructor(
    argv: string[],
    options: { cwd: string; env: Record<string, string>; stdoutFile?: string; columns?: number; recordFile?: string },
  ) {
    this.codeFile = join(options.cwd, `exit-code-${this.socket}`);
    const envArgs = Object.entries(options.env).map(([k, v]) => quote(`${k}=${v}`));
    // Recording: the command waits until the pane is piped to the file, so no early byte is missed.
    const gate = options.recordFile ? `tmux -L ${this.socket} wait-for recording && ` : "";
    const command = `${gate}cd ${quote(options.cwd)} && env -i ${envArgs.join(" ")} ${argv.map(quote).join(" ")}${options.stdoutFile ? ` > ${quote(options.stdoutFile)}` : ""}; echo $? > ${quote(this.codeFile)}; tmux -L ${this.socket} wait-for -S done; sleep 600`;
    this.tmux(["new-session", "-d", "-x", String(options.columns ?? 160), "-y", "50", command]);
    if (options.recordFile) {
      this.tmux(["pipe-pane", "-o", `cat >> ${quote(options.recordFile)}`]);
      this.tmux(["wait-for", "-S", "recording"]);
    }
    // Subscribed before the command can end: wait-for -S with no waiter is remembered by tmux.
    this.waiter = Bun.spawn(["tmux", "-L", this.socket, "wait-for", "done"], { stdout: "ignore", stderr: "ignore" });
    this.done = this.waiter.exited.then(() => Number(readFileSync(this.codeFile, "utf8").trim()));
  }

  private tmux(args: string[]): string {
    const r = Bun.spawnSync(["tmux", "-L", this.socket, ...args], { stdout: "pipe", stderr: "pipe" });
    if (r.exitCode !== 0) throw new Error(`tmux ${args[0]} failed: ${r.stderr.toString()}`);
    return r.stdout.toString();
  }

  /** What the terminal shows now. */
  screen(): string {
    return this.tmux(["capture-pane", "-p", "-J"]);
  }

  /** Resolves with the screen once `match` holds for it; rejects with the screen after `timeoutMs`. */
  async waitForScreen(match: (screen: string) => boolean, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (match(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the terminal never showed what was expected; it shows:\n${screen}`);
      // The screen has no change event: look again after a short pause.
      await Bun.sleep(50);
    }
  }

  /** Type `text` literally. */
  type(text: string): void {
    this.tmux(["send-keys", "-l", text]);
  }

  /** Press a key by tmux name (`Enter`, `Escape`, `C-c`). */
  press(key: string): void {
    this.tmux(["send-keys", key]);
  }

  /** The command's exit code, once it ended. */
  exited(): Promise<number> {
    return this.done;
  }

  /** End the private tmux server (and everything running in it). */
  kill(): void {
    Bun.spawnSync(["tmux", "-L", this.socket, "kill-server"], { stdout: "ignore", stderr: "ignore" });
    if (this.waiter.exitCode === null) this.waiter.kill();
  }
}
