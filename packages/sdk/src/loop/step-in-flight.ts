/**
 * What a run was doing when its deadline struck: "deadline exceeded" alone does not say whether the model
 * was slow or a tool hung. The loop's own events say what is in flight — a model request (its turn) or tool
 * calls (their names) — and this keeps the latest, so the deadline's message can name it.
 */
import type { RunEvent } from "./events.ts";

/** The step in flight, kept from the run's events. */
export class StepInFlight {
  private turn: number | undefined;
  private readonly tools = new Map<string, string>();

  /** Follow one event of the run. */
  observe(event: RunEvent): void {
    if (event.type === "model-request") this.turn = event.turn;
    else if (event.type === "model-response") this.turn = undefined;
    else if (event.type === "tool-call") this.tools.set(event.toolCallId, event.qualifiedName ?? event.name);
    else if (event.type === "tool-result") this.tools.delete(event.toolCallId);
  }

  /** "waiting for the model (turn 3)", "in tool fs/read_file", or undefined between steps. */
  describe(): string | undefined {
    if (this.tools.size > 0) {
      const names = [...new Set(this.tools.values())];
      return `in tool ${names.slice(0, 3).join(", ")}${names.length > 3 ? ` and ${names.length - 3} more` : ""}`;
    }
    return this.turn !== undefined ? `waiting for the model (turn ${this.turn})` : undefined;
  }
}
