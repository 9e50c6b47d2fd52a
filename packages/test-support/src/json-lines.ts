/** A child process's stdout read as JSON lines, for tests that talk to a fixture process line by line. */

/** Each non-empty line of `stream` parsed as JSON, as it arrives (a line split across chunks is joined). */
export async function* jsonLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<Record<string, unknown>> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.trim() !== "") yield JSON.parse(line) as Record<string, unknown>;
    }
  }
}
