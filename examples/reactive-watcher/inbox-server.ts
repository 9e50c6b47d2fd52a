#!/usr/bin/env bun
/**
 * The watched MCP server of this example, on stdio: one resource, `inbox://current`, whose content is the
 * file INBOX_FILE (default `inbox.md`), with `notifications/resources/updated` to subscribers whenever that
 * file changes; and one tool, `file_triage`, that appends a note to TRIAGE_LOG (default
 * `triage-log.jsonl`) — once per run id. The run id arrives in `_meta` of the call (agentd sends it on
 * every tools/call), so a run re-delivered after a restart learns its work is already done.
 */
import { appendFileSync, existsSync, readFileSync, watch } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { McpServer, RUN_ID_META_KEY } from "@agentd/sdk/mcp";
import { StdioServerTransport } from "@agentd/sdk/transport";

const inbox = resolve(process.env.INBOX_FILE ?? "inbox.md");
const log = resolve(process.env.TRIAGE_LOG ?? "triage-log.jsonl");
const URI = "inbox://current";

const server = new McpServer({ name: "inbox", version: "1.0.0" });
server.resource({ uri: URI, name: "inbox", mimeType: "text/markdown", description: "The inbox, as it is now" }, (uri) => ({
  contents: [{ uri, mimeType: "text/markdown", text: existsSync(inbox) ? readFileSync(inbox, "utf8") : "" }],
}));

const filed = (): Array<{ runId: string; note: string }> =>
  existsSync(log)
    ? readFileSync(log, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : [];

server.tool(
  {
    name: "file_triage",
    description: "File the triage note for the current state of the inbox (idempotent per run)",
    inputSchema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] },
  },
  (args, ctx) => {
    const runId = String(ctx.meta[RUN_ID_META_KEY] ?? "");
    if (runId && filed().some((entry) => entry.runId === runId))
      return { content: [{ type: "text", text: `already done: run ${runId} filed its note before` }] };
    appendFileSync(log, `${JSON.stringify({ runId, note: String(args.note) })}\n`);
    return { content: [{ type: "text", text: `filed for run ${runId}` }] };
  },
);

// Editors replace files by rename: watch the folder, not the file.
const watcher = watch(dirname(inbox), (_event, name) => {
  if (name === basename(inbox)) void server.notifyResourceUpdated(URI);
});

const session = await server.connect(new StdioServerTransport());
session.events.on("close", () => {
  watcher.close();
  process.exit(0);
});
