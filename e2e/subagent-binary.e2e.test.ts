/**
 * The compiled binary spawns itself as a subagent: `bun build --compile` makes one file; its child is the
 * same file with the hidden `__subagent` entry and the control channel on fd 3.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeGateway, type FakeGateway } from "@agentd/testkit";
import { CLI_MAIN, CliWorkspace } from "@agentd/test-support/cli-process";
import { killTagged, newTag, TAG_ENV, taggedSurvivors } from "./__fixtures__/subagent/tree.ts";
import { COMPILE_FLAGS } from "@agentd/cli/compile-flags";

const dir = mkdtempSync(join(tmpdir(), "agentd-sub-bin-"));
const binary = join(dir, "agentd");
const tag = newTag();
let ws: CliWorkspace;
let gateway: FakeGateway | undefined;

beforeAll(async () => {
  const build = Bun.spawn([process.execPath, "build", ...COMPILE_FLAGS, CLI_MAIN, "--outfile", binary], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`bun build --compile failed: ${err}`);
  ws = new CliWorkspace();
}, 180_000);

afterAll(async () => {
  killTagged(tag);
  await gateway?.close();
  ws?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

test("the compiled binary runs a subagent of itself", async () => {
  gateway = await startFakeGateway({
    dialect: "openai",
    onExhausted: "repeat-last",
    script: [
      (req) => {
        const user = req.messages.find((m) => m.role === "user")?.text ?? "";
        const step = req.messages.filter((m) => m.role === "assistant").length;
        if (user.startsWith("CHILD")) return { text: "hello from the child binary" };
        if (step === 0)
          return {
            toolCalls: [
              { name: req.tools.find((t) => t.endsWith("subagent_spawn")) ?? "?", arguments: { instruction: "CHILD: say hello" } },
            ],
          };
        return { text: `root heard: ${req.lastToolResult?.includes("hello from the child binary") ? "hello" : "nothing"}` };
      },
    ],
  });
  const config = ws.writeConfig({ subagents: { maxDepth: 1 } });
  const run = await ws.run(["run", "--config", config, "Delegate a greeting"], {
    binary,
    env: { AGENT_INTELLIGENCE: gateway.url, AGENT_MODEL: "m", [TAG_ENV]: tag },
  });
  expect(run.stderr).not.toContain("no control channel");
  expect(run.code).toBe(0);
  expect(run.stdout).toBe("root heard: hello\n");
  expect(gateway.requests.filter((r) => r.messages.some((m) => m.role === "user" && m.text.startsWith("CHILD")))).toHaveLength(1);
  expect(await taggedSurvivors(tag)).toEqual([]);
}, 60_000);
