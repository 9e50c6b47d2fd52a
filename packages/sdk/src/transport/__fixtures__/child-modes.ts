/**
 * Test fixture: misbehaving and well-behaved MCP server stand-ins for the process-hygiene tests.
 * argv[2] is the mode; see each branch.
 */
import { spawn } from "node:child_process";

const line = (method: string, params: Record<string, unknown> = {}) => `${JSON.stringify({ jsonrpc: "2.0", method, params })}\n`;
const keepAlive = () => setInterval(() => {}, 60_000);

switch (process.argv[2]) {
  case "ignore-term": {
    // Ignores SIGTERM and stdin EOF: only SIGKILL ends it.
    process.on("SIGTERM", () => console.error("got SIGTERM, ignoring"));
    keepAlive();
    console.error("ready");
    break;
  }
  case "hang": {
    // A server that ignores stdin EOF (never reads it) and says its pid; argv[3] "ignore-term" ignores SIGTERM too.
    if (process.argv[3] === "ignore-term") process.on("SIGTERM", () => console.error("got SIGTERM, ignoring"));
    keepAlive();
    console.error(`pid ${process.pid}`);
    break;
  }
  case "exit-after-hello": {
    process.stdout.write(line("hello"), () => process.exit(3));
    break;
  }
  case "no-read": {
    // Never reads stdin (so the pipe fills); exits with code 5 on SIGUSR1.
    process.on("SIGUSR1", () => process.exit(5));
    keepAlive();
    console.error("ready");
    break;
  }
  case "stderr": {
    process.stderr.write("line one\nline two\r\npartial");
    process.stderr.write("-continued\n");
    process.stderr.write(`${"x".repeat(10_000)}\n`);
    process.stderr.write("no newline at end");
    // Exits by itself once stdin closes.
    process.stdin.on("data", () => {});
    break;
  }
  case "env": {
    const e = process.env;
    process.stdout.write(line("env", { configured: e.FROM_OPTIONS, leaked: e.AGENTD_TEST_PARENT_SECRET ?? null, hasPath: !!e.PATH }));
    process.stdin.on("data", () => {});
    break;
  }
  case "grandchild": {
    // Leaves a grandchild holding our stdout/stderr, then exits.
    const g = spawn(process.execPath, ["-e", "setInterval(() => {}, 60000)"], { stdio: "inherit", detached: false });
    g.unref();
    process.stdout.write(line("grandchild", { pid: g.pid }), () => process.exit(0));
    break;
  }
  default:
    console.error(`unknown mode ${process.argv[2]}`);
    process.exit(2);
}
