/** Which keys the store accepts: short, printable, no path tricks (the directory backend maps them to file names). */
import { AgentdError } from "../wire/errors.ts";

/** Longest key, in characters. */
export const MAX_KEY_LENGTH = 200;
const KEY = /^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/;

/** Throw `E_STORE_KEY` unless `key` is a valid store key. */
export function checkKey(key: unknown): string {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH || !KEY.test(key) || key.includes(".."))
    throw new AgentdError(
      "E_STORE",
      `invalid store key ${JSON.stringify(key)}: use 1-${MAX_KEY_LENGTH} characters of A-Z a-z 0-9 . _ : @ / -, starting with a letter or digit, without ".."`,
    );
  return key;
}
