/**
 * A {@link JobStore} in one JSON file, written atomically: the new content goes to a temp file beside it,
 * which is fsynced, renamed over the old file, and the directory is fsynced, so a crash leaves either the
 * old or the new file, never a partial one (rename is atomic within a directory on POSIX). One process
 * owns a file: two replicas sharing one would overwrite each other (use the external CronJob for that).
 *
 * Format: `{ "version": 1, "schedules": { "<scheduleId>": { "lastFire": "<ISO>" } } }`.
 */
import { open, readdir, readFile, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { AgentdError } from "../wire/errors.ts";
import type { JobStore } from "./job-store.ts";

interface FileShape {
  version: 1;
  schedules: Record<string, { lastFire: string }>;
}

/** A job store file; see the module header. */
export class FileJobStore implements JobStore {
  private loaded: Promise<Map<string, string>> | undefined;
  private chain: Promise<void> = Promise.resolve();
  private seq = 0;

  constructor(readonly path: string) {}

  async get(scheduleId: string): Promise<string | undefined> {
    return (await this.load()).get(scheduleId);
  }

  /** Writes are serialized; each writes the whole file. Rejects with `E_TRANSPORT` when the disk fails. */
  set(scheduleId: string, lastFireIso: string): Promise<void> {
    const write = this.chain.then(async () => {
      const entries = await this.load();
      entries.set(scheduleId, lastFireIso);
      await this.writeAtomically(entries);
    });
    this.chain = write.catch(() => {});
    return write;
  }

  private load(): Promise<Map<string, string>> {
    this.loaded ??= this.readFile();
    return this.loaded;
  }

  private async readFile(): Promise<Map<string, string>> {
    await this.removeStaleTemps();
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
      throw new AgentdError("E_CONFIG_INVALID", `job store ${this.path}: cannot read it (${(error as Error).message})`, { cause: error });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const shape = parsed as Partial<FileShape> | undefined;
    if (shape?.version !== 1 || typeof shape.schedules !== "object" || shape.schedules === null)
      throw new AgentdError("E_CONFIG_INVALID", `job store ${this.path} is not a job store file; move it away or fix it`);
    const out = new Map<string, string>();
    for (const [id, entry] of Object.entries(shape.schedules))
      if (entry && typeof entry.lastFire === "string" && !Number.isNaN(Date.parse(entry.lastFire))) out.set(id, entry.lastFire);
    return out;
  }

  private tempPrefix(): string {
    return `.${basename(this.path)}.tmp-`;
  }

  // A crash between "write temp" and "rename" leaves a temp file; it never held the live state.
  private async removeStaleTemps(): Promise<void> {
    const dir = dirname(this.path);
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) if (name.startsWith(this.tempPrefix())) await unlink(join(dir, name)).catch(() => {});
  }

  private async writeAtomically(entries: Map<string, string>): Promise<void> {
    const shape: FileShape = { version: 1, schedules: {} };
    for (const [id, lastFire] of [...entries].sort(([a], [b]) => a.localeCompare(b))) shape.schedules[id] = { lastFire };
    const dir = dirname(this.path);
    const temp = join(dir, `${this.tempPrefix()}${process.pid}-${this.seq++}`);
    try {
      const file = await open(temp, "wx", 0o600);
      try {
        await file.writeFile(`${JSON.stringify(shape, null, 2)}\n`, "utf8");
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temp, this.path);
      const folder = await open(dir, "r");
      try {
        await folder.sync();
      } finally {
        await folder.close();
      }
    } catch (error) {
      await unlink(temp).catch(() => {});
      throw new AgentdError("E_TRANSPORT", `job store ${this.path}: write failed (${(error as Error).message})`, {
        cause: error,
        retryable: true,
      });
    }
  }
}
