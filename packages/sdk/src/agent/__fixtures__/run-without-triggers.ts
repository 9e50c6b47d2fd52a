/**
 * A process that builds an agent from a configuration without triggers, subagents, durability or approvals
 * (as `agentd demo` does), runs it once and prints which of the trigger runner's, the cron engine's, the
 * supervisor's and the durable parts' modules it has loaded by then; then builds one with an interval
 * trigger, a cron schedule, subagents, a store for served runs, claims and a checkpoint, and approvals, and
 * prints them again: lazy-triggers.test.ts checks that only the second loads them. It imports `createAgentFromConfig`
 * from its own module, not from an entry (whose barrels load every part by design when run from sources).
 */
import { parseConfig } from "../../config/load.ts";
import { scriptedModel, reply } from "../../loop/__fixtures__/scripted-model.ts";
import { createAgentFromConfig } from "../create-agent-from-config.ts";

/** The modules only triggers, subagents, a store (durability) or approvals use. */
const CONFIGURED_ONLY = new RegExp(
  [
    /\/triggers\/(runner\/(agent-triggers|trigger-specs|self-subscriptions)|router|cron-schedule)\.ts$|\/croner\//.source,
    /\/supervisor\/(supervisor|self-tools|control-channel)\.ts$/.source,
    /\/agent\/from-config\/(served-runs-from-config|run-history-store|claims-from-config|token-store-from-config)\.ts$/.source,
    /\/store\/(store-client|run-claims)\.ts$|\/serve\/approvals\/stored-desk\.ts$/.source,
    /\/agent\/checkpoint\/agent-checkpoint\.ts$/.source,
  ].join("|"),
);

const loaded = () =>
  Object.keys(require.cache)
    .filter((path) => CONFIGURED_ONLY.test(path))
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
      // Nothing listens there: the store is connected on first use, which this agent never makes.
      durability: { store: { url: "http://127.0.0.1:9/mcp" }, servedRuns: {}, claims: {} },
      approvals: { rules: [] },
      capabilities: { checkpoint: true },
      serve: { runHistory: { maxRuns: 5 } },
    },
    {},
  ),
  { model: scriptedModel([]) },
);
const triggers = reactive.triggers?.status().map((t) => t.id) ?? [];
const subagents = reactive.supervisor !== undefined;
await reactive.close();
process.stdout.write(`${JSON.stringify({ text, afterRun, afterReactive: loaded(), triggers, subagents })}\n`);
