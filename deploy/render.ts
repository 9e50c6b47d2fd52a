/**
 * A renderer for the subset of kustomize that deploy/ uses, so CI can render the overlays without the
 * kustomize binary (no npm package carries kustomize): `resources` (files, or directories holding a
 * kustomization.yaml, recursively), `labels` (`pairs` added to metadata.labels; selectors untouched),
 * `namespace`, `images` (`name` → `newName`/`newTag`), and `patches` given inline as JSON 6902 operations
 * (`add`, `replace`, `remove`) with a `target` of kind and name. Anything else in a kustomization is an
 * error, so the subset cannot silently drift from what `kubectl kustomize` would do.
 *
 * Usage: bun deploy/render.ts deploy/overlays/served   # prints a JSON `List` for `kubectl apply -f -`
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** A Kubernetes object as rendered. */
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } } & Record<string, unknown>;

type Op = { op: "add" | "replace" | "remove"; path: string; value?: unknown };
const KNOWN = new Set(["apiVersion", "kind", "resources", "labels", "namespace", "images", "patches"]);

const parseYaml = (path: string): unknown => Bun.YAML.parse(readFileSync(path, "utf8"));
const unescape = (s: string) => s.replaceAll("~1", "/").replaceAll("~0", "~");

function applyOp(doc: Record<string, unknown>, op: Op): void {
  const keys = op.path.split("/").slice(1).map(unescape);
  const last = keys.pop();
  if (last === undefined) throw new Error(`patch path ${op.path} names no field`);
  let node: any = doc;
  for (const k of keys) {
    node = Array.isArray(node) ? node[Number(k)] : node?.[k];
    if (node === undefined) throw new Error(`patch path ${op.path}: ${k} does not exist`);
  }
  if (Array.isArray(node)) {
    const i = last === "-" ? node.length : Number(last);
    if (op.op === "add") node.splice(i, 0, op.value);
    else if (op.op === "replace") node[i] = op.value;
    else node.splice(i, 1);
    return;
  }
  if (op.op !== "add" && !(last in node)) throw new Error(`patch path ${op.path} does not exist`);
  if (op.op === "remove") delete node[last];
  else node[last] = op.value;
}

function setImages(obj: unknown, images: Array<{ name: string; newName?: string; newTag?: string }>): void {
  if (Array.isArray(obj)) return obj.forEach((o) => setImages(o, images));
  if (typeof obj !== "object" || obj === null) return;
  const o = obj as Record<string, unknown>;
  if (Array.isArray(o.containers) || Array.isArray(o.initContainers))
    for (const c of [...((o.containers as any[]) ?? []), ...((o.initContainers as any[]) ?? [])]) {
      const [name, tag] = String(c.image).split(":");
      const rule = images.find((i) => i.name === name);
      if (rule) c.image = `${rule.newName ?? name}:${rule.newTag ?? tag}`;
    }
  for (const v of Object.values(o)) setImages(v, images);
}

/** Render the kustomization in `dir` to its objects. */
export function render(dir: string): K8sObject[] {
  const file = join(dir, "kustomization.yaml");
  if (!existsSync(file)) throw new Error(`${dir} has no kustomization.yaml`);
  const k = parseYaml(file) as Record<string, any>;
  for (const key of Object.keys(k)) if (!KNOWN.has(key)) throw new Error(`${file}: "${key}" is outside the kustomize subset deploy/render.ts supports`);
  const objects: K8sObject[] = [];
  for (const r of (k.resources ?? []) as string[]) {
    const path = resolve(dir, r);
    if (statSync(path).isDirectory()) objects.push(...render(path));
    else objects.push(parseYaml(path) as K8sObject);
  }
  for (const l of (k.labels ?? []) as Array<{ pairs: Record<string, string> }>)
    for (const o of objects) o.metadata.labels = { ...o.metadata.labels, ...l.pairs };
  if (k.namespace) for (const o of objects) if (o.kind !== "Namespace") o.metadata.namespace = k.namespace;
  if (k.images) setImages(objects, k.images);
  for (const p of (k.patches ?? []) as Array<{ target: { kind: string; name: string }; patch: string }>) {
    const targets = objects.filter((o) => o.kind === p.target.kind && o.metadata.name === p.target.name);
    if (targets.length === 0) throw new Error(`${file}: patch target ${p.target.kind}/${p.target.name} not found`);
    for (const o of targets) for (const op of Bun.YAML.parse(p.patch) as Op[]) applyOp(o, op);
  }
  return objects;
}

if (import.meta.main) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: bun deploy/render.ts <overlay directory>");
    process.exit(2);
  }
  process.stdout.write(`${JSON.stringify({ apiVersion: "v1", kind: "List", items: render(resolve(dir)) }, null, 2)}\n`);
}
export const DEPLOY_DIR = dirname(import.meta.path);
