/**
 * Drives a fuzz storm through a raw byte pipe and checks every answer against the frames' expectations.
 *
 * Replies addressed to an id are matched by id. Replies without one (bad JSON, bad shape, batches,
 * oversized frames: `id` absent, or null) cannot be, but the peer sends each of them synchronously as the frame is read, so they
 * come back in frame order: the list of their codes must equal the expected list exactly. A ping sentinel
 * after the storm marks the end (its answer is written after every synchronous one before it).
 */
import type { Frame } from "./fuzz-frames.ts";

/** Wire values are read loosely: these are the peer's raw replies. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Msg = any;

const NL = 10;

/** Splits a byte stream into JSON lines and lets a test wait for a matching one. */
export class ReplyLines {
  readonly messages: Msg[] = [];
  private buffer = new Uint8Array(0);
  private readonly decoder = new TextDecoder();
  private waiters: { pred: (m: Msg) => boolean; resolve: (m: Msg) => void }[] = [];

  /** Feed bytes read from the peer. */
  push(chunk: Uint8Array): void {
    const joined = new Uint8Array(this.buffer.length + chunk.length);
    joined.set(this.buffer);
    joined.set(chunk, this.buffer.length);
    let start = 0;
    for (let nl = joined.indexOf(NL); nl !== -1; nl = joined.indexOf(NL, start)) {
      const line = this.decoder.decode(joined.subarray(start, nl));
      start = nl + 1;
      if (line.trim() !== "") this.add(JSON.parse(line));
    }
    this.buffer = joined.slice(start);
  }

  /** The first message (already received or future) that matches, within `timeoutMs`. */
  waitFor(pred: (m: Msg) => boolean, what: string, timeoutMs = 20_000): Promise<Msg> {
    const found = this.messages.find(pred);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${what} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ pred, resolve: (m) => (clearTimeout(timer), resolve(m)) });
    });
  }

  private add(m: Msg): void {
    this.messages.push(m);
    this.waiters = this.waiters.filter((w) => (w.pred(m) ? (w.resolve(m), false) : true));
  }
}

/** The outcome of a storm: problems found (empty when every frame got what it deserved) and counts. */
export interface StormVerdict {
  problems: string[];
  frames: number;
  replies: number;
  byKind: Record<string, number>;
}

const key = (id: unknown) => JSON.stringify(id);
const describe = (f: Frame) => `${f.kind}: ${new TextDecoder().decode(f.bytes.subarray(0, 120))}`;

/** Write `frames` (newline-terminated) through `write`, then check every reply `lines` collects. */
export async function runStorm(frames: Frame[], write: (bytes: Uint8Array) => Promise<void>, lines: ReplyLines): Promise<StormVerdict> {
  const from = lines.messages.length;
  const batch: Uint8Array[] = [];
  let size = 0;
  const flush = async () => {
    const out = new Uint8Array(size);
    let at = 0;
    for (const b of batch) out.set(b, at), (at += b.length);
    batch.length = size = 0;
    await write(out);
  };
  for (const f of frames) {
    batch.push(f.bytes, Uint8Array.of(NL));
    size += f.bytes.length + 1;
    if (size > 256 * 1024) await flush();
  }
  batch.push(new TextEncoder().encode('{"jsonrpc":"2.0","id":"sentinel","method":"ping"}\n'));
  size += batch.at(-1)!.length;
  await flush();
  await lines.waitFor((m) => m.id === "sentinel", "answer to the sentinel ping");

  const byId = new Map<string, Frame>();
  for (const f of frames) if (f.expected.reply !== "none" && f.expected.id !== null) byId.set(key(f.expected.id), f);
  const answered = (m: Msg) => m.id !== null && m.id !== undefined && byId.has(key(m.id));
  // Handlers may finish after the sentinel; wait until every addressed reply is in (or report the gap).
  const pending = new Set(byId.keys());
  const arrived = (m: Msg) => {
    if (m.id !== null && m.id !== undefined) pending.delete(key(m.id));
    return pending.size === 0;
  };
  if (pending.size > 0) await lines.waitFor(arrived, "answer to every addressed frame").catch(() => {});

  const replies = lines.messages.slice(from).filter((m) => m.id !== "sentinel");
  const problems: string[] = [];
  const expectedNulls = frames.filter((f) => f.expected.reply === "error" && f.expected.id === null);
  // The wire omits `id` when it could not be read (the 2025-11-25 schema has no null RequestId).
  const unaddressed = (m: Msg) => m.id === null || m.id === undefined;
  const gotNulls = replies.filter(unaddressed);
  if (gotNulls.length !== expectedNulls.length) problems.push(`${gotNulls.length} replies to id null, expected ${expectedNulls.length}`);
  expectedNulls.forEach((f, i) => {
    const got = gotNulls[i];
    if (f.expected.reply === "error" && got?.error?.code !== f.expected.code)
      problems.push(`null-id reply #${i}: got ${JSON.stringify(got?.error ?? got)} for ${describe(f)}`);
  });
  const seen = new Set<string>();
  for (const m of replies.filter((reply) => !unaddressed(reply))) {
    if (!answered(m)) problems.push(`unexpected message ${JSON.stringify(m).slice(0, 200)}`);
    else if (seen.has(key(m.id))) problems.push(`second reply to ${key(m.id)}`);
    else {
      seen.add(key(m.id));
      const f = byId.get(key(m.id))!;
      const e = f.expected;
      if (e.reply === "result" && !("result" in m)) problems.push(`wanted a result, got ${JSON.stringify(m.error)} for ${describe(f)}`);
      if (e.reply === "error" && m.error?.code !== e.code)
        problems.push(`wanted ${e.code}, got ${JSON.stringify(m.error ?? m.result)} for ${describe(f)}`);
    }
  }
  for (const k of pending) problems.push(`no reply to ${describe(byId.get(k)!)}`);
  const byKind: Record<string, number> = {};
  for (const f of frames) byKind[f.kind] = (byKind[f.kind] ?? 0) + 1;
  return { problems: problems.slice(0, 30), frames: frames.length, replies: replies.length, byKind };
}
