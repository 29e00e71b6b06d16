'use strict';
// Spawns a detached descendant (its own session) that outlives the test and writes its pid to a file,
// as a hostile or careless test would. The supervisor must see it, end it and fail the run.
const test = require('node:test');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

test('leaves a detached child behind', () => {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', 'skillgate-project-detached-fixture'], {
    detached: true,
    stdio: 'ignore',
  });
  fs.writeFileSync(path.join(process.env.TMPDIR, 'detached.pid'), String(child.pid));
  child.unref();
});
