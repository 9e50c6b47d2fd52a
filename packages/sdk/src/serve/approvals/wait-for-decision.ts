/**
 * A served run waiting in memory for the decision on its question: it listens to the desk's changes (its
 * own process's at once, other replicas' through the store's bell) and re-reads its question on each, until
 * it is decided. Every change is re-read, not only one naming this question: the bell keeps only the last
 * id rung, so two quick changes from another replica may be heard as one. When the run's caller may answer
 * too (`approvals.askCaller`), it is asked at the same time and its answer is one more decision at the desk
 * — the first recorded wins, whichever channel it came from.
 */
import type { ApprovalViewer, PendingApproval } from "../../loop/approvals/approval-desk.ts";
import type { ApprovalDecision, ApprovalRequest } from "../../loop/approvals/approval-types.ts";
import type { StoredApprovalDesk } from "./stored-desk.ts";

/** How a wait is told to give up, and who else answers. */
export interface WaitOptions {
  askCaller?: (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalDecision | undefined>;
  /** Who the caller decides as (the run's principal). */
  viewer: ApprovalViewer;
  /** The run stopped waiting (it ended, or its own timeout passed): settle the question. */
  onAbort: (reason: unknown) => Promise<void>;
}

/** Resolve the decision recorded for `posted`; reject with the signal's reason when it aborts first. */
export function waitForDecision(
  desk: StoredApprovalDesk,
  posted: PendingApproval,
  signal: AbortSignal,
  options: WaitOptions,
): Promise<ApprovalDecision> {
  const id = posted.request.id;
  const recorded = (a: PendingApproval): ApprovalDecision | undefined => (a.state === "decided" ? a.decision : undefined);
  const early = recorded(posted);
  if (early) return Promise.resolve(early);
  return new Promise<ApprovalDecision>((resolve, reject) => {
    const callerAsked = new AbortController();
    let done = false;
    const finish = (end: () => void) => {
      if (done) return;
      done = true;
      off();
      signal.removeEventListener("abort", aborted);
      callerAsked.abort(new Error("decided"));
      end();
    };
    const check = () =>
      void desk
        .read(id)
        .then((found) => {
          const d = found && recorded(found.doc.approval);
          if (d) finish(() => resolve(d));
        })
        .catch(() => {});
    const off = desk.watch(() => check());
    const aborted = () => {
      const reason = signal.reason;
      finish(() => {
        void options.onAbort(reason).finally(() => reject(reason));
      });
    };
    if (signal.aborted) return aborted();
    signal.addEventListener("abort", aborted, { once: true });
    // Decided between the post and the subscription (another replica, at once): seen here.
    check();
    if (options.askCaller)
      void options
        .askCaller(posted.request, AbortSignal.any([signal, callerAsked.signal]))
        .then((d) => (d && !done ? desk.decide(id, d, options.viewer) : undefined))
        .catch(() => {}); // already decided elsewhere, or the caller could not be asked: the desk still waits
  });
}
