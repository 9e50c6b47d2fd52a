/**
 * The declared types of the SDK's public surface (`packages/sdk/src/wire/types/*.generated.ts`, `config/types.generated.ts`) are
 * generated from the valibot schemas by `scripts/declared-types.ts` and committed; this fails while a committed
 * file is not what the script prints (run `bun scripts/declared-types.ts` after a schema change). That each
 * declared type equals its schema's inferred type is checked by `bun run typecheck` (`*.generated.test.ts`).
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { declaredTypesFiles } from "./declared-types.ts";

test("the committed declared types are what scripts/declared-types.ts prints", async () => {
  const files = await declaredTypesFiles();
  expect(files.size).toBeGreaterThan(15);
  for (const [file, text] of files)
    expect({ file, text: readFileSync(join(import.meta.dir, "..", "packages", "sdk", "src", file), "utf8") }).toEqual({ file, text });
});
