/** `agentd version`. */
import { SUPPORTED_REVISIONS } from "@agentd/sdk/wire";
import { defineCommand } from "citty";
import { EXIT } from "../exit-codes.ts";

/** The version of this build. */
export const VERSION = "0.1.0";

export const versionCommand = defineCommand({
  meta: { name: "version", description: "Print the agentd version and the MCP protocol revisions it speaks." },
  args: { json: { type: "boolean", description: "As JSON" } },
  run({ args }) {
    process.stdout.write(
      args.json
        ? `${JSON.stringify({ version: VERSION, mcp: SUPPORTED_REVISIONS, runtime: `bun ${Bun.version}` })}\n`
        : `agentd ${VERSION} (MCP ${SUPPORTED_REVISIONS.join(", ")})\n`,
    );
    return EXIT.ok;
  },
});
