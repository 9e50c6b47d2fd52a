/**
 * The remote A2A agents' tools, loaded lazily: the A2A client code is imported the first time the tools are
 * listed or called, so an agent without `a2aAgents` (and the one-shot path) never loads it.
 */
import type { Logger } from "../../log.ts";
import type { ToolSet } from "../../loop/tools.ts";
import type { A2aAgentConfig, A2aToolSet } from "./tool-set.ts";

/** A ToolSet over remote agents in front of `next`, with `settle()` for the CancelTasks still under way. */
export interface LazyA2aTools extends ToolSet {
  settle(): Promise<void>;
}

/** The `a2a:NAME` tools of `agents`, chained in front of `next`; nothing is loaded until first use. */
export function lazyA2aTools(agents: Readonly<Record<string, A2aAgentConfig>>, next: ToolSet | undefined, logger: Logger): LazyA2aTools {
  let loaded: Promise<A2aToolSet> | undefined;
  const load = () => (loaded ??= import("./tool-set.ts").then((m) => new m.A2aToolSet(agents, { next, logger })));
  return {
    list: async () => (await load()).list(),
    call: async (name, args, ctx) => (await load()).call(name, args, ctx),
    settle: async () => {
      if (loaded) await (await loaded).settle();
    },
  };
}
