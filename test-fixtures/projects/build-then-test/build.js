'use strict';
// Generates the test into the declared output directory (the only writable place in the staged project).
const fs = require('node:fs');
const path = require('node:path');
const out = path.join(__dirname, 'dist');
fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(
  path.join(out, 'generated.test.js'),
  [
    "'use strict';",
    "const test = require('node:test');",
    "const assert = require('node:assert');",
    "const { greet } = require('../src/greet.js');",
    "test('greets', () => { assert.strictEqual(greet('Ada'), 'Hello, Ada!'); });",
    '',
  ].join('\n'),
);
console.log('generated dist/generated.test.js');
