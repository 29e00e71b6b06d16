'use strict';
// Reads one JSON object {"text": string, "top"?: integer} from stdin and prints one JSON object
// with word, line and character counts and the most frequent words. CommonJS, no dependencies.
// The stop-word list is found next to this file, never relative to the working directory.
const fs = require('node:fs');
const path = require('node:path');

const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const text = String(input.text);
const top = Number.isInteger(input.top) ? input.top : 5;

const stopwords = new Set(
  fs.readFileSync(path.join(__dirname, '..', 'assets', 'stopwords.txt'), 'utf8')
    .split('\n')
    .map((w) => w.trim())
    .filter((w) => w.length > 0),
);

const words = text.toLowerCase().match(/[\p{L}\p{N}'-]+/gu) || [];
const counts = new Map();
for (const w of words) {
  if (!stopwords.has(w)) {
    counts.set(w, (counts.get(w) || 0) + 1);
  }
}
const ranked = [...counts.entries()]
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  .slice(0, top)
  .map(([word, count]) => ({ word, count }));
const lines = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

process.stdout.write(JSON.stringify({
  words: words.length,
  lines,
  characters: [...text].length,
  top: ranked,
}) + '\n');
