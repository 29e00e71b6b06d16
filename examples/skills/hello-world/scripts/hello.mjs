// Reads one JSON object from stdin and prints one JSON object. No dependencies, no network,
// no files: input in, output out.
const chunks = [];
for await (const chunk of process.stdin) {
  chunks.push(chunk);
}
let input;
try {
  input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
} catch {
  process.stderr.write('hello.mjs: input is not JSON\n');
  process.exit(2);
}
if (input === null || typeof input !== 'object' || Array.isArray(input) || typeof input.name !== 'string') {
  process.stderr.write('hello.mjs: expected an object with a string "name"\n');
  process.exit(2);
}
const greeting = `Hello, ${input.name}!`;
process.stdout.write(JSON.stringify({ greeting, length: [...greeting].length }) + '\n');
