/**
 * The tasks extension's identifier and the test for it in a peer's capabilities, in a module of their own: the
 * MCP layer asks on every server's and session's paths whether the extension is negotiated, and
 * `tasks-extension.ts`, which also exports these, makes the extension's schemas when it loads — which a server
 * whose clients never negotiate it does not need.
 */

/** The extension's identifier: the key under `capabilities.extensions`. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Whether capabilities (a client's `_meta` ones or a server's discovered ones) list the extension. */
export function hasTasksExtension(caps: { extensions?: unknown } | undefined): boolean {
  const ext = caps?.extensions;
  return typeof ext === "object" && ext !== null && typeof (ext as Record<string, unknown>)[TASKS_EXTENSION] === "object";
}
