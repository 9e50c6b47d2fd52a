/**
 * The end of the event loop's turn, shared by every request waiting in it: the reference servers answer
 * there, as agentd's server does (one immediate and one promise for all of a turn's requests).
 */
let turn: Promise<void> | undefined;

/** Resolves in the next check phase of the event loop. */
export const nextTurn = (): Promise<void> =>
  (turn ??= new Promise<void>((resolve) =>
    setImmediate(() => {
      turn = undefined;
      resolve();
    }),
  ));
