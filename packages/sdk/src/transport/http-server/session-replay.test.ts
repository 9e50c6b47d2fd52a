import { describe, expect, test } from "bun:test";
import { ReplayBudget } from "./replay-budget.ts";
import { answeredOn, recordAnswer, SessionReplay, type StreamAnswers } from "./session-replay.ts";

const settings = () => ({ eventStoreEvents: 256, eventStoreBytes: 4 * 1024 * 1024, replayBudget: new ReplayBudget(1024 * 1024) });
const answer = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, result: {} });

/** End stream `n` after one answer (request id `n`, sequence 1), its peer connected or not. */
function answerOn(replay: SessionReplay, n: number, delivered: boolean): void {
  replay.keep(n, 1, answer(n));
  replay.streamEnded(n, 1, [[n, 1]], delivered);
}

describe("SessionReplay", () => {
  test("delivered streams keep their events while among the last 8; a stream whose peer was away keeps them", () => {
    const budget = new ReplayBudget(1024 * 1024);
    const replay = new SessionReplay({ ...settings(), replayBudget: budget });
    answerOn(replay, 0, false);
    for (let n = 1; n <= 10; n++) answerOn(replay, n, true);
    // Away: replayable however many streams were delivered since.
    expect(replay.resume(0, 0)).toEqual({ replay: [expect.objectContaining({ stream: 0, seq: 1, data: answer(0) })], lost: [] });
    // Delivered, older than the last 8: gone, answered as lost.
    expect(replay.resume(1, 0)).toEqual({ replay: [], lost: [1] });
    expect(replay.resume(2, 0)).toEqual({ replay: [], lost: [2] });
    for (let n = 3; n <= 10; n++) expect(replay.resume(n, 0).replay.map((e) => e.data)).toEqual([answer(n)]);
    // Only what is held is charged to the server-wide budget.
    expect(budget.bytes).toBe([0, 3, 4, 5, 6, 7, 8, 9, 10].reduce((sum, n) => sum + answer(n).length, 0));
    replay.clear();
    expect(budget.bytes).toBe(0);
  });

  test("a delivered answer larger than 64 kB goes at once; the resumption is told it is lost", () => {
    const replay = new SessionReplay(settings());
    replay.keep(0, 1, "x".repeat(70_000));
    replay.streamEnded(0, 1, [[5, 1]], true);
    expect(replay.resume(0, 0)).toEqual({ replay: [], lost: [5] });
    expect(replay.resume(0, 1)).toEqual({ replay: [], lost: [] });
  });

  test("remembers the last 64 ended streams: an older one's lost answers are no longer known", () => {
    const replay = new SessionReplay({ ...settings(), eventStoreBytes: 10 });
    // Answers over the per-session bound are never held: only the ended-stream memory knows of them.
    for (let n = 0; n < 65; n++) answerOn(replay, n, false);
    expect(replay.resume(0, 0)).toEqual({ replay: [], lost: [] });
    expect(replay.resume(1, 0)).toEqual({ replay: [], lost: [1] });
    expect(replay.resume(64, 0)).toEqual({ replay: [], lost: [64] });
  });

  test("a stream's record keeps its first response without a list and a batch's others in one; a resumption gets them all", () => {
    const replay = new SessionReplay(settings());
    const lone: StreamAnswers = { streamId: 0 };
    recordAnswer(lone, "a", 1);
    expect(lone.answered).toBeUndefined();
    const batch: StreamAnswers = { streamId: 1 };
    recordAnswer(batch, 7, 1);
    recordAnswer(batch, 8, 3);
    recordAnswer(batch, "9", 4);
    expect(answeredOn(batch)).toEqual([
      [7, 1],
      [8, 3],
      ["9", 4],
    ]);
    // Ended with their peers away and nothing held: only the ended streams' memory knows their responses.
    for (const s of [lone, batch, { streamId: 2 }]) replay.streamEndedOn(s, false);
    expect(replay.resume(0, 0)).toEqual({ replay: [], lost: ["a"] });
    expect(replay.resume(0, 1)).toEqual({ replay: [], lost: [] });
    expect(replay.resume(1, 1)).toEqual({ replay: [], lost: [8, "9"] });
    expect(replay.resume(2, 0)).toEqual({ replay: [], lost: [] });
    // A stream still open passes its record's responses itself.
    expect(replay.resume(5, 0, answeredOn(batch))).toEqual({ replay: [], lost: [7, 8, "9"] });
    replay.confirmed(0);
    expect(replay.resume(0, 0)).toEqual({ replay: [], lost: [] });
    expect(replay.resume(1, 3)).toEqual({ replay: [], lost: ["9"] });
  });

  test("a confirmed stream is forgotten; with nothing else kept the replay memory is empty", () => {
    const replay = new SessionReplay(settings());
    answerOn(replay, 0, true);
    expect(replay.empty).toBe(false);
    replay.confirmed(0);
    expect(replay.resume(0, 0)).toEqual({ replay: [], lost: [] });
    expect(replay.empty).toBe(true);
  });
});
