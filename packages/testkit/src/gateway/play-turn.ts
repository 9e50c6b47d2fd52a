/**
 * Playing one static turn onto the wire: a JSON body, an SSE stream (or Gemini's JSON-array stream),
 * or a fault: 429/5xx in the dialect's error shape, a broken chunk, a stall, a dropped connection.
 */
import { toAnswer, type Answer, type AnswerContext } from "./answer.ts";
import {
  formatFrame,
  kindOfStatus,
  type DialectCodec,
  type ParsedRequest,
  type ReasoningContext,
  type RenderContext,
  type RouteMatch,
  type SseFrame,
} from "./dialect.ts";
import type { Sink } from "./http-server.ts";
import type { EchoHeadersTurn, StaticTurn } from "./types.ts";

/** Everything a turn is played against. */
export interface PlayContext {
  codec: DialectCodec;
  sink: Sink;
  route: RouteMatch;
  request: ParsedRequest;
  /** Model id to report. */
  model: string;
  /** Headers every response carries (request ids). */
  headers: Record<string, string>;
  /** Prompt size, cache verdict and thinking switch for the answer. */
  answer: AnswerContext;
  reasoning: ReasoningContext;
}

/** Text of the partial answers that faults deliver before they break. */
const FAULT_TEXT = "This answer will not arrive whole, whatever the client hopes.";

/** Send an error in the dialect's shape. */
export function sendError(
  context: Pick<PlayContext, "codec" | "sink" | "headers">,
  status: number,
  message: string,
  extra: Record<string, string> = {},
  retryAfterSeconds?: number,
): void {
  const { codec } = context;
  const body = JSON.stringify(codec.errorBody(kindOfStatus(status), status, message, retryAfterSeconds));
  context.sink.send(status, { ...context.headers, "content-type": codec.jsonContentType, ...extra }, body);
}

const isStreaming = (context: PlayContext) => context.request.stream && context.route.jsonArrayStream !== true;

function render(context: PlayContext, answer: Answer): { frames: SseFrame[]; body: string } {
  const renderContext: RenderContext = {
    model: context.model,
    includeUsage: context.request.includeUsage,
    reasoning: context.reasoning,
    request: context.request,
  };
  if (context.route.jsonArrayStream === true) {
    // Gemini streamGenerateContent without alt=sse: the chunks as one JSON array.
    const frames = context.codec.renderStream(answer, renderContext);
    return { frames, body: `[${frames.map((frame) => frame.data).join(",\r\n")}]` };
  }
  if (context.request.stream) return { frames: context.codec.renderStream(answer, renderContext), body: "" };
  return { frames: [], body: JSON.stringify(context.codec.renderResponse(answer, renderContext)) };
}

async function writeFrames(context: PlayContext, frames: readonly SseFrame[]): Promise<void> {
  const { sink, codec } = context;
  for (const [index, frame] of frames.entries()) {
    const text = formatFrame(frame, codec.sseLineEnd);
    if (index === 1 && text.length > 8) {
      // One frame in two writes, as networks deliver them: client parsers must buffer partial lines.
      const cut = Math.floor(text.length / 2);
      await sink.write(text.slice(0, cut));
      await sink.write(text.slice(cut));
    } else {
      await sink.write(text);
    }
    if (sink.closed) return;
  }
}

function startStream(context: PlayContext): void {
  context.sink.start(200, {
    ...context.headers,
    "content-type": context.codec.sseContentType,
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
}

function startJson(context: PlayContext, length?: number): void {
  context.sink.start(200, {
    ...context.headers,
    "content-type": context.codec.jsonContentType,
    ...(length === undefined ? {} : { "content-length": String(length) }),
  });
}

async function playAnswer(context: PlayContext, answer: Answer): Promise<void> {
  const { frames, body } = render(context, answer);
  if (!isStreaming(context)) return context.sink.send(200, { ...context.headers, "content-type": context.codec.jsonContentType }, body);
  startStream(context);
  await writeFrames(context, context.codec.doneFrame === undefined ? frames : [...frames, context.codec.doneFrame]);
  context.sink.end();
}

/** Play `turn` as the response to the request in `context`. */
export async function playTurn(turn: Exclude<StaticTurn, EchoHeadersTurn>, context: PlayContext): Promise<void> {
  const { codec, sink } = context;
  if (!("fault" in turn)) {
    const answer = toAnswer(turn, codec.finishWords, context.request.messages, codec.toolCallId, context.answer);
    if (answer.reasoning !== undefined) context.reasoning.served.add(answer.reasoning);
    return playAnswer(context, answer);
  }
  const filler = toAnswer({ text: FAULT_TEXT }, codec.finishWords, context.request.messages, codec.toolCallId);
  switch (turn.fault) {
    case "rate-limit": {
      const seconds = turn.retryAfterSeconds ?? 1;
      return sendError(
        context,
        429,
        "Rate limit reached (scripted by the fake gateway). Please try again later.",
        { "retry-after": String(seconds) },
        seconds,
      );
    }
    case "server-error":
      return sendError(
        context,
        turn.status ?? 500,
        "The server had an error while processing your request (scripted by the fake gateway).",
      );
    case "malformed-chunk": {
      const { frames, body } = render(context, filler);
      if (!isStreaming(context))
        return sink.send(200, { ...context.headers, "content-type": codec.jsonContentType }, body.slice(0, Math.floor(body.length / 2)));
      const broken = frames[1] ?? (frames[0] as SseFrame);
      startStream(context);
      await writeFrames(context, [frames[0] as SseFrame, { ...broken, data: broken.data.slice(0, Math.floor(broken.data.length / 2)) }]);
      return sink.end();
    }
    case "stall": {
      if (isStreaming(context)) {
        startStream(context);
        await writeFrames(context, render(context, filler).frames.slice(0, 1));
      } else {
        startJson(context);
        // JSON whitespace: it puts the headers on the wire under Bun.serve too, which sends none before a body byte.
        await context.sink.write("\n");
      }
      // Never finish: the client's timeout or abort (or the gateway closing) ends it.
      return sink.whenClosed;
    }
    case "disconnect": {
      const { frames, body } = render(context, filler);
      if (isStreaming(context)) {
        startStream(context);
        await writeFrames(context, frames.slice(0, Math.max(1, Math.floor(frames.length / 2))));
      } else {
        startJson(context, Buffer.byteLength(body));
        await sink.write(body.slice(0, Math.floor(body.length / 2)));
      }
      return sink.destroy();
    }
  }
}
