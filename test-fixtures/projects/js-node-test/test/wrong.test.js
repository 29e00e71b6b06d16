'use strict';
const test = require('node:test');
const assert = require('node:assert');
const { add } = require('../src/math.js');

test('expects the wrong sum on purpose', () => {
  assert.strictEqual(add(2, 2), 5);
});
