/**
 * Waiting for the event loop's next check phase (`setImmediate`), shared by every request that waits in the
 * same turn: a quick handler answers within the turn its request arrived in (its answer then goes out as one
 * body instead of a stream), and under load a turn carries many requests. One immediate and one promise
 * for all of them, instead of one of each per request; each still resumes exactly when its own
 * `setImmediate` would have fired.
 */
let turn: Promise<void> | undefined;

function fire(resolve: () => void): void {
  setImmediate(() => {
    // Cleared first: a request that waits from here on waits for the next turn, as its own would.
    turn = undefined;
    resolve();
  });
}

/** Resolves in the next check phase of the event loop (after this turn's microtasks). */
export function nextTurn(): Promise<void> {
  return (turn ??= new Promise<void>(fire));
}
