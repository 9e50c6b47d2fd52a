/**
 * A process that builds an agent from a configuration without triggers or subagents (as `agentd demo`
 * does), runs it once and prints which of the trigger runner's, the cron engine's and the supervisor's
 * modules it has loaded by then; then builds one with an interval trigger, a cron schedule and subagents
 * and prints them again: lazy-triggers.test.ts checks that only the second loads them. It imports
 * `createAgentFromConfig` from its own module, not from an entry (whose barrels load every part by design
 * when run from sources).
 */
import { parseConfig } from "../../config/load.ts";
import { scriptedModel, reply } from "../../loop/__fixtures__/scripted-model.ts";
import { createAgentFromConfig } from "../create-agent-from-config.ts";

/** The modules only triggers and subagents use. */
const TRIGGERS_AND_SUBAGENTS =
  /\/triggers\/(runner\/(agent-triggers|trigger-specs|self-subscriptions)|router|cron-schedule)\.ts$|\/croner\/|\/supervisor\/(supervisor|self-tools|control-channel)\.ts$/;

const loaded = () =>
  Object.keys(require.cache)
    .filter((path) => TRIGGERS_AND_SUBAGENTS.test(path))
    .map((path) => path.replace(/^.*\/packages\/sdk\/src\//, "").replace(/^.*\/node_modules\/(\.bun\/[^/]+\/node_modules\/)?/, ""))
    .sort();

const plain = createAgentFromConfig(parseConfig({ instructions: "answer" }, {}), { model: scriptedModel([reply("done")]) });
const { text } = await plain.run("go");
await plain.close();
const afterRun = loaded();
const reactive = createAgentFromConfig(
  parseConfig(
    {
      triggers: { interval: { every: "1h", instruction: "tick" }, schedules: [{ cron: "0 9 * * *", instruction: "morning" }] },
      subagents: {},
    },
    {},
  ),
  { model: scriptedModel([]) },
);
const triggers = reactive.triggers?.status().map((t) => t.id) ?? [];
const subagents = reactive.supervisor !== undefined;
await reactive.close();
process.stdout.write(`${JSON.stringify({ text, afterRun, afterReactive: loaded(), triggers, subagents })}\n`);
