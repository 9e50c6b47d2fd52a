/**
 * A duration in `agentd.json`: written with a unit (`"30s"`, `"5m"`, `"1h30m"`; a bare number is refused
 * unless 0) and read as milliseconds. One schema, shared by every block that takes one.
 */
import * as v from "valibot";
import { DURATION_FORMS, durationProblem, parseDuration } from "./duration.ts";

/** A duration with a unit, parsed to milliseconds. */
export const duration = v.pipe(
  v.union([v.string(), v.number()], `expected ${DURATION_FORMS}`),
  v.rawCheck(({ dataset, addIssue }) => {
    if (dataset.typed && parseDuration(dataset.value) === undefined) addIssue({ message: durationProblem(dataset.value) });
  }),
  v.transform((d) => parseDuration(d) as number),
);
