/**
 * Test fixture: a subagent child without a model. It serves the control channel on fd 3 and behaves as
 * its instruction says (`verb:argument`), so supervisor tests can script answers, crashes, budget trips,
 * hangs and subtrees with real processes and real pipes.
 */
import { existsSync, writeFileSync } from "node:fs";
import { AgentdError } from "../../wire/errors.ts";
import { serveSubagentChild } from "../child-endpoint.ts";
import { openInheritedControlIO } from "../control-pipe.ts";
import type { ChildResult } from "../control-protocol.ts";
import { Supervisor } from "../supervisor.ts";

const usage = (n: number) => ({ inputTokens: n, outputTokens: 0, totalTokens: n });
const result = (text: string, tokens = 15): ChildResult => ({ text, usage: usage(tokens), turns: 1, toolCalls: 0, stopReason: "final" });
const never = new Promise<never>(() => {});
const until = (signal: AbortSignal) =>
  new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener("abort", () => r(), { once: true })));

let current = "";
const sigterm = new AbortController();
// SIGTERM drains like a cancel, except for the child scripted to ignore it (to test the SIGKILL step).
process.on("SIGTERM", () => (current === "stubborn" ? undefined : sigterm.abort()));

const io = openInheritedControlIO();
const end = await serveSubagentChild(
  io,
  async (start, ctx) => {
    const [cmd = "", ...args] = start.instruction.split(":");
    const arg = args.join(":");
    current = cmd;
    switch (cmd) {
      case "echo":
        ctx.progress({ usage: usage(5), turns: 1, toolCalls: 0 });
        return result(`echo ${arg} (attempt ${start.attempt}, run ${start.runId})`);
      case "cached":
        // A child whose model read most of its input from a prompt cache and reasoned: the split travels up.
        return {
          ...result("cached"),
          usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120, cacheReadTokens: 80, cacheWriteTokens: 10, reasoningTokens: 12 },
        };
      case "start-params":
        return result(JSON.stringify({ start, hasKey: process.env.AGENT_API_KEY === "sk-fixture-key" }));
      case "crash-once":
        if (!existsSync(arg)) {
          writeFileSync(arg, start.runId);
          ctx.progress({ usage: usage(100), turns: 1, toolCalls: 0 });
          setTimeout(() => process.exit(3), 20);
          return never;
        }
        return result(`recovered (attempt ${start.attempt}, run ${start.runId})`);
      case "crash-always":
        ctx.progress({ usage: usage(7), turns: 1, toolCalls: 0 });
        setTimeout(() => process.exit(3), 20);
        return never;
      case "kill-self":
        process.kill(process.pid, "SIGKILL");
        return never;
      case "break-channel":
        io.close();
        return never;
      case "over-budget":
        // A child that does not stop itself: the parent must.
        ctx.progress({ usage: usage(Number(arg)), turns: 1, toolCalls: 0 });
        await until(ctx.signal);
        throw new AgentdError("E_ABORTED", "stopped", { data: { usage: usage(Number(arg)) } });
      case "budget-self":
        throw new AgentdError("E_BUDGET_TOKENS", `token budget exceeded: ${arg} > ${start.limits.maxTokens}`, {
          data: { usage: usage(Number(arg)), turns: 1, stopReason: "max-tokens" },
        });
      case "fail":
        throw new AgentdError("E_RUN_FAILED", "the model gave up", { data: { usage: usage(3) } });
      case "gate":
        while (!existsSync(arg) && !ctx.signal.aborted) await new Promise((r) => setTimeout(r, 20));
        return result(`gate opened`);
      case "hang":
      case "stubborn":
        await until(ctx.signal);
        if (cmd === "stubborn") return never;
        throw new AgentdError("E_ABORTED", "cancelled", { data: { usage: usage(1) } });
      case "tree": {
        // Spawn a hanging grandchild, report its pid, hang; on cancel, stop the subtree first.
        const sup = new Supervisor({
          model: {},
          command: { command: process.execPath, args: [import.meta.path] },
          depth: start.depth,
          maxDepth: start.subagents.maxDepth,
          graceMs: start.subagents.graceMs,
        });
        sup.start({ instruction: "hang" });
        while (sup.pids().length === 0) await new Promise((r) => setTimeout(r, 10));
        ctx.progress({ usage: usage(1), turns: 1, toolCalls: 0, message: `grandchild ${sup.pids()[0]}` });
        await until(ctx.signal);
        await sup.shutdown();
        throw new AgentdError("E_ABORTED", "cancelled with subtree");
      }
      default:
        throw new AgentdError("E_RUN_FAILED", `fixture: unknown instruction ${start.instruction}`);
    }
  },
  { signal: sigterm.signal },
);
process.exit(end.answered ? 0 : 1);
