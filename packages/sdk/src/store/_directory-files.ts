/**
 * Internal: how the directory backend names a key's file, and what of a file-system failure a client may
 * see.
 *
 * A key is up to 200 characters, and `:` `/` `@` each take three in the URL-encoded file name, so a valid
 * key can need 600 — past the 255 bytes a file name may have (ext4, XFS, btrfs, tmpfs, overlayfs, NFS, APFS).
 * A key whose encoded name fits keeps it (so every document written before this mapping is still found);
 * a longer one is stored as `~<sha-256 of the key>.json`, a bounded name that no encoded key can take (keys
 * start with a letter or digit), with the key kept inside the document so `list` can give it back.
 *
 * File-system errors name paths (`EACCES: permission denied, open '/var/lib/…'`): a client of the store must
 * never learn where the server keeps its data, so what reaches it names the key and the error code only.
 */
import { sha256 } from "../_internal/hash.ts";
import { AgentdError } from "../wire/errors.ts";
import { checkKey } from "./key.ts";

/** Every document file ends so; nothing else in the directory does. */
export const SUFFIX = ".json";
/** The first character of a hashed file name. */
const HASHED = "~";
/** The longest file name, in bytes, that every common file system accepts. */
const NAME_MAX = 255;

/** The file name (inside the store directory) of `key`'s document, and whether it is hashed. */
export function fileNameOf(key: string): { name: string; hashed: boolean } {
  const direct = encodeURIComponent(key) + SUFFIX;
  if (direct.length <= NAME_MAX) return { name: direct, hashed: false };
  return { name: `${HASHED}${sha256(key, "hex")}${SUFFIX}`, hashed: true };
}

/**
 * What a file in the store directory holds: `{ key }` for a directly named document, `"hashed"` for one
 * whose key is inside it, undefined for anything else (temp files, the lock, files that are not ours).
 */
export function keyOfFileName(name: string): { key: string } | "hashed" | undefined {
  if (!name.endsWith(SUFFIX)) return undefined;
  if (name.startsWith(HASHED)) return /^~[0-9a-f]{64}\.json$/.test(name) ? "hashed" : undefined;
  try {
    const key = decodeURIComponent(name.slice(0, -SUFFIX.length));
    return fileNameOf(checkKey(key)).name === name ? { key } : undefined;
  } catch {
    return undefined;
  }
}

const MEANING: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EIO: "input/output error",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  ENAMETOOLONG: "file name too long",
  EISDIR: "is a directory",
  ENOENT: "no such file or directory",
};

/**
 * `e` as a client may see it: an `AgentdError` of ours as it is (none names a path), any other error as
 * `E_STORE` naming what was being done and the error code, never the path.
 */
export function withoutPaths(e: unknown, doing: string): AgentdError {
  if (AgentdError.isInstance(e)) return e;
  const code = typeof (e as { code?: unknown })?.code === "string" ? (e as { code: string }).code : undefined;
  const what = code ? `${code}${MEANING[code] ? ` (${MEANING[code]})` : ""}` : "an unexpected error";
  return new AgentdError("E_STORE", `the store could not ${doing}: ${what} in its directory`, {
    retryable: code === "EMFILE" || code === "ENFILE",
  });
}
