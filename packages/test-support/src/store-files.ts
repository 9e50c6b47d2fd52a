/**
 * The documents a directory store (`agentd store --dir`) holds, read as text while the store may still be
 * writing: a write goes to a `.tmp-*` file and is renamed over the document, so a listing can name a temp
 * file that is gone (or a document replaced) by the time it is read. Temp files are not documents and are
 * skipped; a name that vanished between the listing and the read is skipped too (its new version, if any,
 * is under its own name).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const TEMP = ".tmp-";

/** The text of every document under `dir`, recursively. */
export function storeDocumentsText(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || e.name.startsWith(TEMP)) continue;
    try {
      out.push(readFileSync(join(e.parentPath, e.name), "utf8"));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return out;
}
