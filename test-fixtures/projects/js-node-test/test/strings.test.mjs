import test from 'node:test';
import assert from 'node:assert';

test('upper-cases', () => {
  assert.strictEqual('ada'.toUpperCase(), 'ADA');
});
