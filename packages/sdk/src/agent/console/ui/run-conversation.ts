/// <reference lib="dom" />
/**
 * A run's conversation on its page: the conversation it continued (id, title, size), the runs that continued it
 * (each a link to its page, and the Runs page filtered to them), and its latest exchanges as the server
 * bounded and masked them (console-conversation.ts).
 */
import { h, when } from "./dom.ts";
import { runHref } from "./run-parts.ts";

const ROLE: Record<string, string> = { user: "user", assistant: "model", tool: "tool" };

/** The section, or null for a run that continued no conversation. */
export function runConversation(run: any): HTMLElement | null {
  const c = run.conversation;
  if (!c) return null;
  const head = h("h2", {}, "Conversation ", h("code", {}, c.id));
  if (c.unavailable) return h("div", { id: "run-conversation" }, head, h("p", { class: "muted" }, `not shown: ${c.unavailable}`));
  const runs: string[] = c.runs ?? [];
  return h(
    "div",
    { id: "run-conversation" },
    head,
    h(
      "p",
      { class: "muted" },
      [
        c.title ? `“${c.title}”` : "",
        `${c.messages} messages`,
        c.dropped ? `${c.dropped} dropped by its bound` : "",
        c.updatedAt ? `updated ${when(c.updatedAt)}` : "",
      ]
        .filter(Boolean)
        .join(" · "),
      " · ",
      h("a", { href: `#/runs/${new URLSearchParams({ conversation: c.id })}`, id: "conversation-runs" }, "its runs"),
    ),
    runs.length
      ? h(
          "p",
          { class: "conversation-run-links" },
          "Runs: ",
          ...runs.flatMap((id, i) => [
            i ? ", " : "",
            id === run.runId ? h("strong", {}, id) : h("a", { href: runHref(run.principal, id) }, id),
          ]),
        )
      : null,
    c.earlierLeftOut ? h("p", { class: "muted" }, "… earlier messages left out") : null,
    h(
      "ol",
      { class: "exchanges", id: "conversation-exchanges", "aria-label": "The conversation's latest messages" },
      ...(c.latest ?? []).map((l: any) =>
        h(
          "li",
          { class: `exchange ${l.role} ${l.kind}` },
          h("span", { class: "who-said" }, `${ROLE[l.role] ?? l.role}${l.kind === "text" ? "" : ` · ${l.kind}`}`),
          " ",
          l.text,
        ),
      ),
    ),
  );
}
