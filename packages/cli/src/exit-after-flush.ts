/**
 * Leaving the process without losing output. Bun's `process.stdout.write("", cb)` calls back before the
 * earlier writes reach a pipe, so `process.exit` after it cut a late or slow reader off at 64 KiB.
 * `end()` calls back once everything written has been handed to the pipe (or the reader has gone away).
 */

/** Flush stdout and stderr to their readers, however slow, then exit with `code`. */
export async function exitAfterFlush(code: number): Promise<never> {
  await Promise.all([endStream(process.stdout), endStream(process.stderr)]);
  process.exit(code);
}

function endStream(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise<void>((resolve) => {
    // A reader that closed its end (`agentd run … | head`) makes end() fail: nothing more can be delivered.
    stream.once("error", () => resolve());
    try {
      stream.end(() => resolve());
    } catch {
      resolve();
    }
  });
}
