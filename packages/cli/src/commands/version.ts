/** `agentd version`. */
import { defineCommand } from "citty";
import { EXIT } from "../exit-codes.ts";
import { VERSION, versionText } from "../version-text.ts";

export { VERSION };

export const versionCommand = defineCommand({
  meta: { name: "version", description: "Print the agentd version and the MCP protocol revisions it speaks." },
  args: { json: { type: "boolean", description: "As JSON" } },
  run({ args }) {
    process.stdout.write(versionText(args.json === true));
    return EXIT.ok;
  },
});
