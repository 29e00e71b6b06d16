'use strict';
exports.add = (a, b) => a + b;
exports.mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
