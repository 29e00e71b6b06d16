declare function require(name: string): any;
const test = require('node:test');
const assert = require('node:assert');
import { add } from './math';

test('adds typed numbers', () => {
  const sum: number = add(40, 2);
  assert.strictEqual(sum, 42);
});
