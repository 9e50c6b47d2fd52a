/**
 * `SpawnRequest` (the declared type) equals the type its JSON Schema describes (`SPAWN_REQUEST_SCHEMA`):
 * `bun run typecheck` fails on any difference — a field added to the schema and not to the interface, an
 * optional field made required, a type changed. No run-time test here; `spawn-request.test.ts` checks the
 * schema against an independent validator.
 */
import type { SPAWN_REQUEST_SCHEMA, SpawnRequest } from "./spawn-request.ts";

/** The TypeScript type a JSON Schema of the subset the request uses describes. */
type FromSchema<S> = S extends { type: "object"; properties: infer P }
  ? ObjectOf<P, S extends { required: readonly (infer R)[] } ? R : never>
  : S extends { type: "object" }
    ? Record<string, unknown>
    : S extends { type: "string" }
      ? string
      : S extends { type: "integer" | "number" }
        ? number
        : S extends { type: "boolean" }
          ? boolean
          : S extends { type: "array"; items: infer I }
            ? FromSchema<I>[]
            : unknown;
type ObjectOf<P, R> = { -readonly [K in keyof P as K extends R ? K : never]-?: FromSchema<P[K]> } & {
  -readonly [K in keyof P as K extends R ? never : K]?: FromSchema<P[K]>;
};

type Flat<T> = T extends (...args: never[]) => unknown ? T : T extends object ? { [K in keyof T]: Flat<T[K]> } : T;
type Equal<A, B> = (<T>() => T extends Flat<A> ? 1 : 2) extends <T>() => T extends Flat<B> ? 1 : 2 ? true : false;

/** `true`, or a type error naming both sides. */
export const same: Equal<SpawnRequest, FromSchema<typeof SPAWN_REQUEST_SCHEMA>> = true;
