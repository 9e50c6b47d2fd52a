/**
 * The Standard Schema interfaces (https://standardschema.dev), copied as the spec recommends so that no
 * validator library is a dependency: valibot, zod, arktype and others implement `~standard`, and a tool's
 * `parameters` may be any of them. `StandardJSONSchemaV1` is the spec's companion for validators that can
 * also describe themselves as JSON Schema (`~standard.jsonSchema.input({ target })`); zod 4 and arktype
 * implement it; valibot 1.x does not, and is rendered with `@valibot/to-json-schema` when that is installed
 * (valibot-json-schema.ts), else needs `jsonSchema` passed.
 */
import { valibotJsonSchema } from "./valibot-json-schema.ts";

/** A validator that follows the Standard Schema spec, version 1. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardSchemaV1.Props<Input, Output>;
}

// The spec publishes its types as a namespace; kept as it is so that its documented names work here too.
// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace StandardSchemaV1 {
  /** The properties behind `~standard`. */
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  /** What `validate` returns. */
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One validation problem. */
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  /** The static types a schema carries (never present at run time). */
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  /** The type a schema accepts. */
  export type InferInput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["input"];
  /** The type a schema produces. */
  export type InferOutput<Schema extends StandardSchemaV1> = NonNullable<Schema["~standard"]["types"]>["output"];
}

/** A validator that can also render itself as JSON Schema (the spec's `StandardJSONSchemaV1`). */
export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": StandardJSONSchemaV1.Props<Input, Output>;
}

// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace StandardJSONSchemaV1 {
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly types?: StandardSchemaV1.Types<Input, Output> | undefined;
    readonly jsonSchema: Converter;
  }
  /** Renders the schema's input or output side for a JSON Schema dialect. */
  export interface Converter {
    readonly input: (options: Options) => Record<string, unknown>;
    readonly output: (options: Options) => Record<string, unknown>;
  }
  export type Target = "draft-2020-12" | "draft-07" | "openapi-3.0" | ({} & string);
  export interface Options {
    readonly target: Target;
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
}

/** Whether `value` implements Standard Schema v1. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { "~standard"?: unknown } | null | undefined)?.["~standard"];
  return (
    typeof props === "object" &&
    props !== null &&
    (props as { version?: unknown }).version === 1 &&
    typeof (props as { validate?: unknown }).validate === "function"
  );
}

/** Render one side of a schema as JSON Schema when the validator can; undefined when it cannot. */
export function standardJsonSchema(schema: StandardSchemaV1, side: "input" | "output"): Record<string, unknown> | undefined {
  const converter = (schema["~standard"] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  if (typeof converter?.[side] !== "function") return valibotJsonSchema(schema, side);
  // Draft 2020-12 is what MCP's 2025-11-25 revision names as the default dialect; draft-07 where a vendor lacks it.
  try {
    return converter[side]({ target: "draft-2020-12" });
  } catch {
    return converter[side]({ target: "draft-07" });
  }
}

/** One line per issue: `city: expected string`. */
export function formatIssues(issues: ReadonlyArray<StandardSchemaV1.Issue>): string {
  return issues
    .map((issue) => {
      const path = (issue.path ?? []).map((p) => String(typeof p === "object" && p !== null ? p.key : p)).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}
