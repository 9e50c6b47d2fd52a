#!/usr/bin/env node
/**
 * The `agentd` command of the `@agentd/cli` package: a small launcher, runnable by Node (or Bun), that starts
 * the compiled agentd binary for this platform. The binary ships in one optional dependency per platform
 * (`@agentd/cli-linux-x64`, …, each limited by `os`/`cpu`), so the package manager installs only the one
 * that fits and Bun need not be installed. In a source checkout (no platform package, `../src/main.ts`
 * present) it runs the sources with Bun instead. Arguments, stdio and the exit status pass through.
 *
 * agentd dies with this launcher, even when the launcher is killed without warning (`kill -9`): users and
 * supervisors (systemd, a shell's job control) hold the launcher's pid, not agentd's. A signal handler cannot
 * see a SIGKILL, and Linux's parent-death signal must be set between fork and exec (out of reach here), so a
 * watchdog does it: `/bin/sh` reading a pipe whose only writer is this launcher. The kernel closes our end
 * however we die; at end-of-file the watchdog SIGKILLs agentd, whose own watchdog then stops every process
 * agentd started (agentd's guarantee for its own `kill -9`). The watchdog runs in its own session with no
 * output and none of our environment; an ordinary exit of ours stops it first, so it never signals a pid
 * that was reused. Without `/bin/sh` (or on Windows) this protection is off.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const platform = process.platform === "win32" ? "windows" : process.platform;
const target = `${platform}-${process.arch}`;
const exe = platform === "windows" ? "agentd.exe" : "agentd";

/** The binary from the platform package, if it is installed. */
function installedBinary() {
  try {
    const manifest = createRequire(import.meta.url).resolve(`@agentd/cli-${target}/package.json`);
    const binary = join(dirname(manifest), "bin", exe);
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}

/** The command to run: the platform binary, else the sources of a checkout with Bun, else undefined. */
function command() {
  const binary = installedBinary();
  if (binary) return [binary];
  const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  if (existsSync(main)) return [process.versions.bun ? process.execPath : "bun", main];
  return undefined;
}

const cmd = command();
if (!cmd) {
  process.stderr.write(
    `agentd: no binary for ${target}: the optional dependency @agentd/cli-${target} is not installed ` +
      "(installed with optional dependencies omitted, or a platform without a build); reinstall @agentd/cli with optional dependencies\n",
  );
  process.exit(1);
}

// A terminal's Ctrl-C (SIGINT) and hangup (SIGHUP) already reach the child, which shares our process group:
// forwarding them would deliver a second signal, which agentd reads as "stop now, skip the drain". SIGTERM
// comes from a supervisor to our pid alone: pass it on. The handlers are in place before the child starts,
// so a SIGTERM sent as soon as the child speaks is never lost (handlers run from the event loop, after
// `spawn` has returned).
const ignore = () => {};
process.on("SIGINT", ignore);
process.on("SIGHUP", ignore);
const terminate = () => child.kill("SIGTERM");
process.on("SIGTERM", terminate);
// The watchdog starts before agentd: a kill -9 of ours the moment agentd is up (it can print before a second
// fork of ours returns, on a loaded machine) must find it already watching. It learns agentd's pid from the pipe.
const watchdog = startWatchdog();
const child = spawn(cmd[0], [...cmd.slice(1), ...process.argv.slice(2)], { stdio: "inherit" });
const stopWatchdog = watchdog(child.pid);
child.on("error", (error) => {
  stopWatchdog();
  const hint = error.code === "ENOENT" && cmd.length > 1 ? " (running from sources needs Bun on the PATH)" : "";
  process.stderr.write(`agentd: cannot start ${cmd[0]}: ${error.message}${hint}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  process.off("SIGINT", ignore);
  process.off("SIGHUP", ignore);
  process.off("SIGTERM", terminate);
  stopWatchdog();
  // Die of the same signal, so our parent sees what the child saw.
  if (signal) process.kill(process.pid, signal);
  else process.exit(code ?? 1);
});

/**
 * Start the watchdog (see the header) before agentd exists; returns the function that tells it agentd's pid
 * and returns the function that stops it (call that before any exit of ours).
 */
function startWatchdog() {
  const off = () => () => {};
  if (process.platform === "win32") return off;
  const script = `trap '' INT HUP
IFS= read -r pid || exit 0
while IFS= read -r l; do :; done
kill -9 "$pid" 2>/dev/null`;
  let watchdog;
  try {
    watchdog = spawn("/bin/sh", ["-c", script, "agentd-launcher-watchdog"], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
      env: { PATH: "/usr/bin:/bin" },
    });
  } catch {
    return off;
  }
  watchdog.on("error", () => {});
  watchdog.stdin?.on("error", () => {});
  // Never what keeps this launcher alive: it ends when agentd does.
  watchdog.unref();
  watchdog.stdin?.unref?.();
  const stop = () => {
    try {
      watchdog.kill("SIGKILL");
    } catch {
      // Gone already.
    }
  };
  return (pid) => {
    if (pid === undefined) {
      stop();
      return () => {};
    }
    watchdog.stdin?.write(`${pid}\n`);
    return stop;
  };
}
