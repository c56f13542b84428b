// The cross-face conformance cases (tests/fixtures/cases/*.json), shared by the node tests and the type check.
import { readdirSync, readFileSync } from "node:fs";

const dir = new URL("../../../tests/fixtures/cases/", import.meta.url);

/** Every case as `{name, request, context, expected}`, sorted by file name. */
export function cases() {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => ({ name: f.replace(/\.json$/, ""), ...JSON.parse(readFileSync(new URL(f, dir), "utf8")) }));
}
