/**
 * Leaving the process without losing output. Bun's `process.stdout.write("", cb)` calls back before the
 * earlier writes reach a pipe, so `process.exit` after it cut a late or slow reader off at 64 KiB.
 * `end()` calls back once everything written has been handed to the pipe (or the reader has gone away).
 */

/** Each stream's end, once asked for: ending early (`endStdout`) and at exit wait for the same one. */
const ending = new Map<NodeJS.WriteStream, Promise<void>>();

/** Flush stdout and stderr to their readers, however slow, then exit with `code`. */
export async function exitAfterFlush(code: number): Promise<never> {
  await Promise.all([endStream(process.stdout), endStream(process.stderr)]);
  process.exit(code);
}

/**
 * Start handing stdout over now, when a command has printed all it will print: the hand-over (an event-loop
 * turn or a slow reader) then overlaps the rest of its shutdown instead of following it. Nothing may be
 * written to stdout afterwards; {@link exitAfterFlush} still waits for it.
 */
export function endStdout(): void {
  void endStream(process.stdout);
}

function endStream(stream: NodeJS.WriteStream): Promise<void> {
  let ended = ending.get(stream);
  if (!ended) {
    ended = new Promise<void>((resolve) => {
      // A reader that closed its end (`agentd run … | head`) makes end() fail: nothing more can be delivered.
      stream.once("error", () => resolve());
      try {
        stream.end(() => resolve());
      } catch {
        resolve();
      }
    });
    ending.set(stream, ended);
  }
  return ended;
}
