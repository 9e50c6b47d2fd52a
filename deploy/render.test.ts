/** The kustomize-subset renderer: what each supported field does, and that anything else is refused. */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { render } from "./render.ts";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Write files (path → text) under a fresh directory. */
function tree(files: Record<string, string>): string {
  dir = mkdtempSync(join(tmpdir(), "agentd-render-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: { name: web, labels: { keep: "yes" } }
spec:
  replicas: 3
  selector: { matchLabels: { app: web } }
  template:
    metadata: { labels: { app: web } }
    spec:
      containers: [{ name: c, image: "agentd:0.1.0" }]
`;

describe("deploy/render.ts", () => {
  test("resources, labels, namespace, images and JSON 6902 patches, base first", () => {
    const root = tree({
      "base/kustomization.yaml": "resources: [deploy.yaml]\nlabels: [{ pairs: { team: a } }]\n",
      "base/deploy.yaml": DEPLOYMENT,
      "overlay/kustomization.yaml": `resources: [../base]
namespace: prod
images: [{ name: agentd, newName: registry.example/agentd, newTag: "0.2.0" }]
patches:
  - target: { kind: Deployment, name: web }
    patch: |-
      - { op: replace, path: /spec/replicas, value: 1 }
      - { op: add, path: /metadata/labels/tier, value: front }
      - { op: remove, path: /metadata/labels/keep }
`,
    });
    const [d] = render(join(root, "overlay")) as any[];
    expect(d.metadata).toEqual({ name: "web", namespace: "prod", labels: { team: "a", tier: "front" } });
    expect(d.spec.replicas).toBe(1);
    expect(d.spec.template.spec.containers[0].image).toBe("registry.example/agentd:0.2.0");
    // Labels go on metadata only: selectors are left alone (kustomize's `labels` without includeSelectors).
    expect(d.spec.selector.matchLabels).toEqual({ app: "web" });
  });

  test("a field outside the subset, a missing patch target or path, is an error", () => {
    const root = tree({
      "a/kustomization.yaml": "resources: [d.yaml]\ncommonLabels: { x: y }\n",
      "a/d.yaml": DEPLOYMENT,
      "b/kustomization.yaml": "resources: [../a/d.yaml]\npatches: [{ target: { kind: Deployment, name: nope }, patch: '[]' }]\n",
      "c/kustomization.yaml": "resources: [../a/d.yaml]\npatches: [{ target: { kind: Deployment, name: web }, patch: '[{op: replace, path: /spec/nope/x, value: 1}]' }]\n",
    });
    expect(() => render(join(root, "a"))).toThrow('"commonLabels" is outside the kustomize subset');
    expect(() => render(join(root, "b"))).toThrow("patch target Deployment/nope not found");
    expect(() => render(join(root, "c"))).toThrow("/spec/nope/x: nope does not exist");
  });
});
