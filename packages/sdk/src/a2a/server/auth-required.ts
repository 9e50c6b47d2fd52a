/**
 * `auth-required`: a run served as an A2A task needs a remote MCP server's authorization it does not hold
 * (no stored token and a person's grant needed, or a refresh refused). The status message names the server,
 * the command that grants it on the agent's host, and where (authorization server, resource) — never a
 * token. A follow-up message on the task says it is done (agentd then re-reads its token store and retries
 * the server), or `cancel` to give up (the tool call fails with the error).
 */
import type { Part, Message } from "../shared/types.ts";
import type { AuthorizationNeed } from "../../mcp/client/authorization-ask.ts";

/** The status message parts: what is missing and what to do, in words, then the same as a data part. */
export function authRequiredParts(need: AuthorizationNeed): Part[] {
  const command = `agentd auth login ${need.server}`;
  const where = [
    need.authorizationServer ? `authorization server ${need.authorizationServer}` : "",
    need.resource ? `resource ${need.resource}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  return [
    {
      text: `MCP server '${need.server}' needs authorization: run \`${command}\` where the agent runs${where ? ` (${where})` : ""}, then send a message on this task (same taskId) saying it is done, or 'cancel'.`,
    },
    {
      data: {
        server: need.server,
        command,
        authorizationServer: need.authorizationServer || undefined,
        resource: need.resource || undefined,
        error: need.message,
        answer: "send a message on this task once the authorization is done (any text), or the text 'cancel'",
      },
      mediaType: "application/json",
    },
  ];
}

/** Whether a follow-up says the authorization is done (true) or gives up (`cancel`/`decline`: false). */
export function authorizationDone(message: Message): boolean {
  const text = message.parts
    .map((p) => p.text ?? "")
    .join("")
    .trim();
  return !/^(cancel|decline)$/i.test(text);
}
