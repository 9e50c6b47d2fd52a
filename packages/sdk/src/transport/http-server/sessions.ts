/**
 * The live sessions of a server: minting ids, the session-count limit, lookup bound to the principal, and
 * idle expiry.
 *
 * Session ids come from a CSPRNG (192 bits, hex: visible ASCII as the spec requires). They identify a
 * session, they never authenticate it: a lookup by another principal finds nothing (404), so a leaked id is
 * useless without the credentials that created the session (security best practices, "Session Hijacking").
 */
import type { Logger } from "../../log.ts";
import { Session } from "./session.ts";

/** Settings of the registry. */
export interface RegistrySettings {
  maxSessions: number;
  sessionIdleMs: number;
  maxStreamsPerSession: number;
  eventStoreEvents: number;
  retryMs: number;
  logger: Logger;
}

/** A fresh session id: 24 random bytes as 48 hex characters. */
export function mintSessionId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("hex");
}

/** All sessions of one server. */
export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  private reaper: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly settings: RegistrySettings) {
    const every = Math.max(50, Math.min(Math.floor(settings.sessionIdleMs / 2), 30_000));
    this.reaper = setInterval(() => this.reap(Date.now()), every);
    this.reaper.unref?.();
  }

  /** Live sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** Create a session bound to `principal`; undefined when `maxSessions` are live. */
  create(principal: string): Session | undefined {
    if (this.sessions.size >= this.settings.maxSessions) return undefined;
    const session = new Session(mintSessionId(), principal, {
      retryMs: this.settings.retryMs,
      eventStoreEvents: this.settings.eventStoreEvents,
      maxStreams: this.settings.maxStreamsPerSession,
      logger: this.settings.logger,
      onended: (s, reason) => {
        this.sessions.delete(s.id);
        this.settings.logger.info("http.session.end", { session: s.id.slice(0, 8), reason });
      },
    });
    this.sessions.set(session.id, session);
    this.settings.logger.info("http.session.start", { session: session.id.slice(0, 8) });
    return session;
  }

  /** The session with this id created by this principal; undefined otherwise (unknown, ended, or not theirs). */
  get(id: string, principal: string): Session | undefined {
    const s = this.sessions.get(id);
    return s && s.principal === principal ? s : undefined;
  }

  /** End sessions with no open request or stream and no activity for `sessionIdleMs`. */
  reap(now: number): void {
    for (const s of [...this.sessions.values()])
      if (!s.busy && now - s.lastActivity > this.settings.sessionIdleMs) s.close("idle");
  }

  /** Total connected SSE streams. */
  streams(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.connectedStreams;
    return n;
  }

  /** End every session and stop the reaper. */
  closeAll(reason: string): void {
    if (this.reaper) clearInterval(this.reaper);
    this.reaper = undefined;
    for (const s of [...this.sessions.values()]) s.close(reason);
  }
}
