// Runs skills-ref (the npm JavaScript port of the Agent Skills reference validator) over a list of
// skill directories and prints one JSON object on stdout. Started by the benchmarks harness
// (dev.skillgate.benchmarks.peers.PeerComparison) with the system node:
//   node skills-ref-driver.mjs <node_modules dir> <list.json> <timed passes>
// list.json is a JSON array of absolute skill directory paths. With an empty list it only imports
// the package, which is how the harness times the process start-up separately.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const started = performance.now();
const [modules, listFile, passArg] = process.argv.slice(2);
const passes = Number(passArg ?? "5");
const pkg = JSON.parse(await readFile(join(modules, "skills-ref", "package.json"), "utf8"));
const ref = await import(pathToFileURL(join(modules, "skills-ref", "dist", "index.js")).href);
const imported = performance.now();
const dirs = JSON.parse(await readFile(listFile, "utf8"));

// Untimed pass: verdicts, messages and the description as the port reads it.
const results = [];
for (const dir of dirs) {
  const errors = await ref.validate(dir);
  let description = null;
  try {
    const content = await readFile(join(dir, "SKILL.md"), "utf-8");
    const [meta] = ref.parseFrontmatter(content);
    description = "description" in meta ? String(meta.description) : null;
  } catch (e) {
    description = null;
  }
  results.push({ errors, description });
}

// Timed passes: validate() only, as a caller would use it.
const passMs = [];
for (let p = 0; p < passes; p++) {
  const t0 = performance.now();
  for (const dir of dirs) {
    await ref.validate(dir);
  }
  passMs.push(performance.now() - t0);
}

process.stdout.write(JSON.stringify({
  tool: "skills-ref",
  version: pkg.version,
  node: process.version,
  importMs: imported - started,
  passMs,
  results,
}));
