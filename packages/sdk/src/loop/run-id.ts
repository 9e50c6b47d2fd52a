/**
 * The one place a run id is minted. A run id keeps one name from `agentd run` (or an `agent.run` request)
 * down to `_meta` of every tool call, so a caller's id is always honoured and a fresh one is made here
 * only — in the loop's layer because both the agent and the served surfaces below it mint one (a served
 * run's id is fixed before the agent is asked, so its claim and its record can name it). Ids derived from
 * a trigger event (triggers/run-id.ts) are not minted: the same event must give the same id.
 */

/** A fresh run id: `run-<uuid>`. */
export function mintRunId(): string {
  return `run-${crypto.randomUUID()}`;
}

/** The caller's run id when it gave one (a non-empty string), else a fresh one. */
export function runIdOr(given: string | undefined): string {
  return given !== undefined && given !== "" ? given : mintRunId();
}
