/**
 * The agent's one table of runs in flight: run id → {@link ActiveRun}. Whoever needs "the run with this id"
 * — `agent.cancel(runId)`, an MCP server's elicitation routed through the open tool calls, a server's
 * authorization, the sampling bill of a tool call, the trigger tag of a log record — gets the run here and
 * reads its field; a run leaves the table when it ends, and with it everything that was its. Two runs under
 * one id at once (a caller reusing an id) are both in flight; the newer answers for the id.
 */
import { ActiveRun, type RunInit } from "./run.ts";

/** See the module header. */
export class Runs {
  private readonly byId = new Map<string, ActiveRun[]>();
  private count = 0;
  private readonly settled = new Set<() => void>();

  /** Make the run and put it in flight. */
  begin(init: RunInit): ActiveRun {
    const run = new ActiveRun(init);
    const same = this.byId.get(run.id);
    if (same) same.push(run);
    else this.byId.set(run.id, [run]);
    this.count++;
    return run;
  }

  /** The run in flight with this id (the newest, when a caller reused one), or undefined. */
  get(id: string): ActiveRun | undefined {
    return this.byId.get(id)?.at(-1);
  }

  /** The run left flight (finished): it is forgotten, and waiters on {@link onSettle} hear of it. */
  end(run: ActiveRun): void {
    const same = this.byId.get(run.id);
    const i = same?.indexOf(run) ?? -1;
    if (!same || i < 0) return;
    same.splice(i, 1);
    if (!same.length) this.byId.delete(run.id);
    this.count--;
    for (const s of [...this.settled]) s();
  }

  /** How many runs are in flight. */
  get size(): number {
    return this.count;
  }

  /** The ids of the runs in flight. */
  ids(): string[] {
    return [...this.byId.keys()];
  }

  /** Every run in flight. */
  all(): ActiveRun[] {
    return [...this.byId.values()].flat();
  }

  /** Call `listener` each time a run ends; returns the function that stops it. */
  onSettle(listener: () => void): () => void {
    this.settled.add(listener);
    return () => this.settled.delete(listener);
  }
}
