/**
 * SIGINT/SIGTERM handling for long-running commands: the first signal aborts the run (in-flight tool calls
 * get notifications/cancelled, the model request is aborted) and the command drains and exits with
 * 130/143; a second signal exits at once.
 */

/** An AbortController that fires on SIGINT or SIGTERM, with the signal name as its reason. */
export function abortOnSignals(): { signal: AbortSignal; dispose: () => void; received: () => NodeJS.Signals | undefined } {
  const controller = new AbortController();
  let received: NodeJS.Signals | undefined;
  const handler = (sig: NodeJS.Signals) => {
    if (received) process.exit(sig === "SIGINT" ? 130 : 143);
    received = sig;
    controller.abort(sig);
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return {
    signal: controller.signal,
    received: () => received,
    dispose: () => {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
    },
  };
}
