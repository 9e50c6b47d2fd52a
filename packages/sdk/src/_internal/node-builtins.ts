/**
 * Node's `http`, `https`, `net`, `tls`, `crypto`, `child_process` and `url` modules, loaded on first use rather than at
 * import.
 * Under Bun these built-ins are JavaScript modules of the runtime, and loading them costs ~5 MB of resident
 * memory for the life of the process (Bun 1.4.4, measured after a full GC): a fifth of what an idle agentd
 * server holds, while the Bun adapter without a proxy in front, a mutual-TLS front or bearer tokens calls
 * none of them. `require` rather than `import()`: their users need them synchronously, and a bundler
 * hoists a static import of a built-in to the top of the bundle, where it would load at start again (the
 * compiled CLI is such a bundle). The runtime caches each module: every call after the first is a lookup.
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

/** `node:http`, loaded on the first call. */
export const nodeHttp = (): typeof import("node:http") => load("node:http");

/** `node:https`, loaded on the first call. */
export const nodeHttps = (): typeof import("node:https") => load("node:https");

/** `node:net`, loaded on the first call. */
export const nodeNet = (): typeof import("node:net") => load("node:net");

/** `node:tls`, loaded on the first call. */
export const nodeTls = (): typeof import("node:tls") => load("node:tls");

/** `node:child_process`, loaded on the first call (Bun spawns with `Bun.spawn`; ~0.7 MB under Bun). */
export const nodeChildProcess = (): typeof import("node:child_process") => load("node:child_process");

/** `node:crypto`, loaded on the first call. */
export const nodeCrypto = (): typeof import("node:crypto") => load("node:crypto");

/** `node:url`, loaded on the first call (~0.4 ms of CPU under Bun; only file-URL conversions use it). */
export const nodeUrl = (): typeof import("node:url") => load("node:url");
