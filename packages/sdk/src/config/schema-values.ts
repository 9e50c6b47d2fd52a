/**
 * The value shapes every config group uses: a duration (written "30s" or 30000, parsed to milliseconds),
 * a whole number of at least 1, a number of 0 or more, a map of strings.
 */
import * as v from "valibot";
import { DURATION_FORMS, durationProblem, parseDuration } from "./duration.ts";

/** A duration: "30s", "5m", … or milliseconds; parsed to milliseconds. */
export const duration = v.pipe(
  v.union([v.string(), v.number()], `expected ${DURATION_FORMS}`),
  v.rawCheck(({ dataset, addIssue }) => {
    if (dataset.typed && parseDuration(dataset.value) === undefined) addIssue({ message: durationProblem(dataset.value) });
  }),
  v.transform((d) => parseDuration(d) as number),
);
/** A whole number of at least 1. */
export const positiveInt = v.pipe(v.number(), v.integer("a whole number"), v.minValue(1, "at least 1"));
/** A number of 0 or more. */
export const nonNegative = v.pipe(v.number(), v.minValue(0, "0 or more"));
/** A map of strings (headers, environment). */
export const stringMap = v.record(v.string(), v.string());
