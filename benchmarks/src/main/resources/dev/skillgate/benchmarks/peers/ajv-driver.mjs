// Runs ajv 8 (draft 2020-12) on the schemas and inputs the benchmarks harness gives it and prints
// one JSON object on stdout. Started by dev.skillgate.benchmarks.peers.PeerComparison:
//   node ajv-driver.mjs <node_modules dir> <job.json>
// job.json: { seconds, workloads: [{id, schema, input}], cases: [{schema, data}] } where input and
// data are JSON texts (exactly the bytes the Java side checks).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createRequire } from "node:module";

const [modules, jobFile] = process.argv.slice(2);
const require = createRequire(join(modules, "ajv", "package.json"));
const Ajv2020 = require("ajv/dist/2020").default;
const pkg = JSON.parse(await readFile(join(modules, "ajv", "package.json"), "utf8"));
const job = JSON.parse(await readFile(jobFile, "utf8"));

// Verdicts on the agreement cases (each schema compiled once).
const verdicts = [];
for (const c of job.cases) {
  try {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(c.schema);
    verdicts.push({ valid: validate(JSON.parse(c.data)) === true });
  } catch (e) {
    verdicts.push({ error: String(e).slice(0, 200) });
  }
}

// Throughput: rounds of about 10 ms, median ns per operation, with and without JSON.parse.
function rounds(fn, seconds) {
  let n = 1;
  for (;;) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    if (Number(process.hrtime.bigint() - t0) > 10e6) break;
    n *= 2;
  }
  const warmEnd = Date.now() + seconds * 250;
  while (Date.now() < warmEnd) for (let i = 0; i < n; i++) fn();
  const samples = [];
  const end = Date.now() + seconds * 750;
  while (Date.now() < end || samples.length < 10) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    samples.push(Number(process.hrtime.bigint() - t0) / n);
  }
  samples.sort((a, b) => a - b);
  return { medianNs: samples[Math.floor(samples.length / 2)], p25Ns: samples[Math.floor(samples.length / 4)],
    p75Ns: samples[Math.floor((samples.length * 3) / 4)], rounds: samples.length };
}

const throughput = [];
for (const w of job.workloads) {
  const ajv = new Ajv2020({ strict: false });
  const validate = ajv.compile(JSON.parse(w.schema));
  const bytes = Buffer.from(w.input, "utf8");
  const parsed = JSON.parse(w.input);
  if (validate(parsed) !== true) throw new Error(w.id + ": ajv rejects the workload input");
  let sink = 0;
  const withParse = rounds(() => { sink += validate(JSON.parse(bytes.toString("utf8"))) ? 1 : 0; }, job.seconds);
  const validateOnly = rounds(() => { sink += validate(parsed) ? 1 : 0; }, job.seconds);
  throughput.push({ id: w.id, withParse, validateOnly, sink });
}

process.stdout.write(JSON.stringify({ tool: "ajv", version: pkg.version, node: process.version, verdicts, throughput }));
