import { afterAll, describe, expect, test } from "bun:test";
import { AgentdError } from "@agentd/sdk";
import { join } from "node:path";
import { CliWorkspace } from "@agentd/test-support/cli-process";
import { checkFlags, runCli } from "./cli.ts";

const capture = () => {
  const out = { stdout: "", stderr: "" };
  return { out, io: { stdout: (s: string) => void (out.stdout += s), stderr: (s: string) => void (out.stderr += s) } };
};

const workspaces: CliWorkspace[] = [];
afterAll(() => workspaces.forEach((ws) => ws.cleanup()));
// In-process runs share this process's working directory: any config they name lives in a scratch folder,
// so a command that wrongly got past the flag check could not write into the checkout.
const scratch = new CliWorkspace();
workspaces.push(scratch);
const cfg = join(scratch.dir, "agentd.json");
const ESC = "\x1b[";

describe("runCli", () => {
  test("--help on every command teaches by example", async () => {
    for (const argv of [["--help"], ["run", "--help"], ["demo", "--help"], ["version", "--help"]]) {
      const { out, io } = capture();
      expect(await runCli(argv, io)).toBe(0);
      expect(out.stdout).toContain("USAGE");
      expect(out.stdout).toContain("Examples:");
    }
  });
  test("no arguments prints usage and exits 2", async () => {
    const { out, io } = capture();
    expect(await runCli([], io)).toBe(2);
    expect(out.stdout).toContain("run");
  });
  test("the error line shows control characters escaped (an upstream's message may carry them)", async () => {
    const { out, io } = capture();
    expect(await runCli(["status", "--url", "http://127.0.0.1:1/mcp", "--failures", "x\x1b]0;pwned\x07\x9b2J"], io)).toBe(2);
    expect(out.stderr).toStartWith("agentd: --failures must be an integer from 1 to 100 (got 'x\\u001b]0;pwned\\u0007\\u009b2J')\n");
    expect(out.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  });
  test("an unknown command is one line, exit 2", async () => {
    const { out, io } = capture();
    expect(await runCli(["frobnicate"], io)).toBe(2);
    expect(out.stderr).toBe("agentd: unknown command 'frobnicate'. Run 'agentd --help' to see the commands.\n");
  });
});

describe("help output has no colour codes unless stdout is a colour terminal", () => {
  test("a captured io (not a terminal) gets plain text", async () => {
    for (const argv of [["--help"], ["run", "--help"], ["mcp", "-h"], []]) {
      const { out, io } = capture();
      await runCli(argv, io);
      expect(out.stdout).toContain("USAGE");
      expect(out.stdout).not.toContain(ESC);
    }
  });
  test("NO_COLOR wins even on a terminal", async () => {
    const saved = process.env.NO_COLOR;
    process.env.NO_COLOR = "1";
    try {
      const { out, io } = capture();
      expect(await runCli(["run", "--help"], { ...io, color: true })).toBe(0);
      expect(out.stdout).not.toContain(ESC);
    } finally {
      if (saved === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = saved;
    }
  });
  test("the real CLI piped into another program prints plain help", async () => {
    const ws = new CliWorkspace();
    workspaces.push(ws);
    const run = await ws.run(["serve", "--help"], { env: { TERM: "xterm-256color" } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("USAGE");
    expect(run.stdout).not.toContain(ESC);
  });
});

describe("unknown flags are refused, with the closest known flag", () => {
  const refused = async (argv: string[]) => {
    const { out, io } = capture();
    const code = await runCli(argv, io);
    return { code, first: out.stderr.split("\n")[0], stderr: out.stderr, stdout: out.stdout };
  };

  test("a misspelt flag is a usage error naming the command and the flag it resembles", async () => {
    const run = await refused(["run", "--max-turn", "1", "-c", cfg, "x"]);
    expect(run.code).toBe(2);
    expect(run.first).toBe("agentd: unknown flag --max-turn for 'agentd run' (did you mean --max-turns?)");
    expect(run.stderr).toContain("Run 'agentd run --help' for usage.");
    expect((await refused(["mcp", "--conifg", "x.json", "-c", cfg])).first).toBe(
      "agentd: unknown flag --conifg for 'agentd mcp' (did you mean --config?)",
    );
    expect((await refused(["init", "--yes", "--sever", "fs=x", "-c", cfg])).first).toBe(
      "agentd: unknown flag --sever for 'agentd init' (did you mean --server?)",
    );
    expect((await refused(["run", "--jsno", "-c", cfg, "x"])).first).toBe(
      "agentd: unknown flag --jsno for 'agentd run' (did you mean --json?)",
    );
    expect((await refused(["run", "--maxTurn=3", "-c", cfg, "x"])).first).toBe(
      "agentd: unknown flag --maxTurn for 'agentd run' (did you mean --max-turns?)",
    );
  });

  test("a flag with nothing close gets no guess; its =value is not repeated", async () => {
    const run = await refused(["run", "--zzzzzzzz=hunter2", "-c", cfg, "x"]);
    expect(run.code).toBe(2);
    expect(run.first).toBe("agentd: unknown flag --zzzzzzzz for 'agentd run'");
    expect(run.stderr).not.toContain("hunter2");
  });

  test("short flags, negations of non-booleans, and a long flag with one dash", async () => {
    expect((await refused(["init", "-yq", "-c", cfg])).first).toBe("agentd: unknown flag -q for 'agentd init'");
    expect((await refused(["run", "--no-config", "-c", cfg, "x"])).first).toBe("agentd: unknown flag --no-config for 'agentd run'");
    expect((await refused(["run", "-config", "a.json", "-c", cfg, "x"])).first).toBe(
      "agentd: unknown flag -config for 'agentd run' (did you mean --config?)",
    );
    expect((await refused(["version", "--jsn"])).first).toBe("agentd: unknown flag --jsn for 'agentd version' (did you mean --json?)");
  });

  test("flags before the command are the root's: only --help and --version", async () => {
    const run = await refused(["--verison"]);
    expect(run.code).toBe(2);
    expect(run.first).toBe("agentd: unknown flag --verison for 'agentd' (did you mean --version?)");
    expect(run.stderr).toContain("Run 'agentd --help' for usage.");
  });

  test("a flag renamed from a planning code is refused with a line naming the new one", async () => {
    const run = await refused(["run", "--cron", "0 7 * * *", "--tz", "Europe/Berlin", "--cron-v2", "report"]);
    expect(run.code).toBe(2);
    expect(run.first).toBe("agentd: --cron-v2 was renamed --cron-timezones");
  });

  test("every spelling citty accepts passes: names, aliases, camelCase, =value, --no-<boolean>, groups, after --", async () => {
    const ok = [
      ["run", "--max-turns", "1", "--maxTurns=2", "-m", "qwen3", "--model=x", "-c", "a.json", "--json", "--no-json", "--json=false", "x"],
      ["run", "--instructions", "--looks-like-a-flag", "--max-turns", "-1", "--cron-timezones", "--cronTimezones", "--run-id=r1", "x"],
      ["run", "x", "--", "--anything", "-goes"],
      ["run", "-", "--deadline", "2m", "--help"],
      ["init", "-yc", "ops/agentd.json", "--no-force", "--server=fs=npx -y x", "--server", "--weird=value", "--api-key-env", ""],
      ["mcp", "fs", "call", "search", "--arg", "query=inbox", "-a", 'filters:={"unread":true}', '{"x":1}', "--json", "--timeout=5s"],
      ["mcp", "fs", "call", "write", "-", "-ajson:=1", "--a", "k=v"],
      ["serve", "--http", "127.0.0.1:0", "--stdio", "-h"],
      ["version", "--json"],
    ];
    for (const argv of ok) {
      const error = await checkFlags(argv).catch((e: Error) => e.message);
      expect({ argv, error }).toEqual({ argv, error: undefined });
    }
  });

  test("the check is an AgentdError E_USAGE, so library callers can tell it apart", async () => {
    const error = await checkFlags(["serve", "--htp", "127.0.0.1:0"]).catch((e) => e);
    expect(AgentdError.isInstance(error) && error.code).toBe("E_USAGE");
    expect((error as Error).message).toBe("unknown flag --htp for 'agentd serve' (did you mean --http?)");
  });

  test("the real CLI: `serve --htp` exits 2 instead of serving stdio", async () => {
    const ws = new CliWorkspace();
    workspaces.push(ws);
    const run = await ws.run(["serve", "--htp", "127.0.0.1:0"]);
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe("agentd: unknown flag --htp for 'agentd serve' (did you mean --http?)");
    expect(run.stdout).toBe("");
  });
});
