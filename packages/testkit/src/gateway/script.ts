/** The script of a fake gateway: turns consumed one per accepted request, in order. */
import { turnProblem } from "./turns.ts";
import type { Turn } from "./types.ts";

/** A queue of turns with the gateway's exhaustion policy. */
export class Script {
  readonly #turns: Turn[] = [];
  #used = 0;
  #last: Turn | undefined;

  constructor(
    turns: readonly Turn[],
    private readonly onExhausted: "error" | "repeat-last",
  ) {
    this.push(...turns);
  }

  /** Append turns; throws a TypeError naming the first bad one (a test-author mistake). */
  push(...turns: Turn[]): void {
    turns.forEach((turn, index) => {
      const problem = turnProblem(turn);
      if (problem !== undefined) throw new TypeError(`fake gateway: turn ${this.#used + this.#turns.length + index + 1}: ${problem}`);
    });
    this.#turns.push(...turns);
  }

  /** Turns not yet used. */
  get remaining(): number {
    return this.#turns.length;
  }

  /** Turns handed out so far. */
  get used(): number {
    return this.#used;
  }

  /** The next turn, the last one again under "repeat-last", or undefined when exhausted. */
  next(): Turn | undefined {
    const turn = this.#turns.shift();
    if (turn !== undefined) {
      this.#used += 1;
      this.#last = turn;
      return turn;
    }
    return this.onExhausted === "repeat-last" ? this.#last : undefined;
  }
}
