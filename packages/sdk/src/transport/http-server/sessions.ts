/**
 * The live sessions of a server: minting ids, the session caps (server-wide and per principal), lookup
 * bound to the principal, and expiry.
 *
 * Session ids come from a CSPRNG (192 bits, hex: visible ASCII as the spec requires). They identify a
 * session, they never authenticate it: a lookup by another principal finds nothing (404), so a leaked id is
 * useless without the credentials that created the session (security best practices, "Session Hijacking").
 *
 * One client must not lock others out. A principal holds at most `maxSessionsPerPrincipal` sessions (when
 * the endpoint authenticates; without auth every caller is the one local principal, held by the server-wide
 * cap alone). A session that holds nothing — no open stream, no request in flight — gives its slot up at
 * once when a cap is reached (the least recently active goes first; its id then answers 404 and the
 * client, as the spec says, initializes again); a session whose client never sends
 * `notifications/initialized` ends after `initializeTimeoutMs`; one that holds nothing ends after
 * `sessionIdleMs`.
 */
import type { Logger } from "../../log.ts";
import type { ReplayBudget } from "./replay-budget.ts";
import { Session, type SessionSettings } from "./session.ts";

/** Settings of the registry. */
export interface RegistrySettings {
  maxSessions: number;
  /** Sessions one principal may hold; 0 = no cap of its own (an endpoint without auth: one principal). */
  maxSessionsPerPrincipal: number;
  sessionIdleMs: number;
  initializeTimeoutMs: number;
  maxStreamsPerSession: number;
  eventStoreEvents: number;
  eventStoreBytes: number;
  replayBudget?: ReplayBudget;
  retryMs: number;
  logger: Logger;
}

/** Why no session could be created: the server-wide cap, or the caller's own. */
export type CreateRefusal = "server-full" | "principal-full";

/** A fresh session id: 24 random bytes as 48 hex characters. */
export function mintSessionId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("hex");
}

/** All sessions of one server. */
export class SessionRegistry {
  private readonly sessions = new Map<string, Session>();
  /** Live sessions per principal. */
  private readonly perPrincipal = new Map<string, number>();
  private reaper: ReturnType<typeof setInterval> | undefined;
  /** What every session is given: one object for all of them, not a copy each. */
  private readonly sessionSettings: SessionSettings;

  constructor(private readonly settings: RegistrySettings) {
    this.sessionSettings = {
      retryMs: settings.retryMs,
      eventStoreEvents: settings.eventStoreEvents,
      eventStoreBytes: settings.eventStoreBytes,
      replayBudget: settings.replayBudget,
      maxStreams: settings.maxStreamsPerSession,
      logger: settings.logger,
      onended: (s, reason) => this.ended(s, reason),
    };
    const every = Math.max(50, Math.min(Math.floor(Math.min(settings.sessionIdleMs, settings.initializeTimeoutMs) / 2), 30_000));
    this.reaper = setInterval(() => this.reap(Date.now()), every);
    this.reaper.unref?.();
  }

  /** Live sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** Live sessions of one principal. */
  countOf(principal: string): number {
    return this.perPrincipal.get(principal) ?? 0;
  }

  /** Create a session bound to `principal`, making room from sessions that hold nothing; or say which cap refused it. */
  create(principal: string): Session | CreateRefusal {
    const { maxSessions, maxSessionsPerPrincipal } = this.settings;
    if (maxSessionsPerPrincipal > 0 && this.countOf(principal) >= maxSessionsPerPrincipal && !this.evictIdle(principal))
      return "principal-full";
    if (this.sessions.size >= maxSessions && !this.evictIdle(undefined)) return "server-full";
    const session = new Session(mintSessionId(), principal, this.sessionSettings);
    this.sessions.set(session.id, session);
    this.perPrincipal.set(principal, this.countOf(principal) + 1);
    this.settings.logger.info("http.session.start", { session: session.id.slice(0, 8) });
    return session;
  }

  /** A session ended: its slot (server-wide and its principal's) is free again. */
  private ended(s: Session, reason: string): void {
    if (!this.sessions.delete(s.id)) return;
    const n = this.countOf(s.principal) - 1;
    if (n > 0) this.perPrincipal.set(s.principal, n);
    else this.perPrincipal.delete(s.principal);
    this.settings.logger.info("http.session.end", { session: s.id.slice(0, 8), reason });
  }

  /** The session with this id created by this principal; undefined otherwise (unknown, ended, or not theirs). */
  get(id: string, principal: string): Session | undefined {
    const s = this.sessions.get(id);
    return s && s.principal === principal ? s : undefined;
  }

  /**
   * End the least recently active session that holds nothing (of `principal`, or of anyone), preferring one
   * never initialized. False when every candidate holds a stream or a request.
   */
  private evictIdle(principal: string | undefined): boolean {
    let victim: Session | undefined;
    for (const s of this.sessions.values()) {
      if (s.busy || s.inFlight > 0 || (principal !== undefined && s.principal !== principal)) continue;
      if (!victim || rank(s) < rank(victim)) victim = s;
    }
    if (!victim) return false;
    victim.end(victim.initialized ? "evicted: idle while the session cap was reached" : "evicted: never initialized");
    return true;
  }

  /** End sessions never initialized after `initializeTimeoutMs`, and those holding nothing for `sessionIdleMs`. */
  reap(now: number): void {
    const { sessionIdleMs, initializeTimeoutMs } = this.settings;
    for (const s of [...this.sessions.values()]) {
      if (!s.initialized && now - s.createdAt > initializeTimeoutMs) s.end("not initialized in time");
      else if (!s.busy && s.inFlight === 0 && now - s.lastActivity > sessionIdleMs) s.end("idle");
    }
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
    for (const s of [...this.sessions.values()]) s.end(reason);
  }
}

/** Eviction order: never-initialized sessions first, then the least recently active. */
const rank = (s: Session) => (s.initialized ? s.lastActivity : s.lastActivity - 1e15);
