// Reads {"version": string, "changes": [{"kind": "added"|"changed"|"fixed", "text": string}]} from
// stdin and prints {"markdown": string}. No dependencies; the template is read next to this file.
import { readFileSync } from 'node:fs';

const input = JSON.parse(readFileSync(0, 'utf8'));
const template = readFileSync(new URL('../assets/template.md', import.meta.url), 'utf8');
const titles = { added: 'Added', changed: 'Changed', fixed: 'Fixed' };

let sections = '';
for (const kind of ['added', 'changed', 'fixed']) {
  const entries = input.changes.filter((c) => c.kind === kind);
  if (entries.length > 0) {
    sections += `\n### ${titles[kind]}\n\n` + entries.map((c) => `- ${c.text.replace(/\.$/, '')}`).join('\n') + '\n';
  }
}
const markdown = template.replace('{{version}}', input.version).replace('{{sections}}', sections);
process.stdout.write(JSON.stringify({ markdown }) + '\n');
