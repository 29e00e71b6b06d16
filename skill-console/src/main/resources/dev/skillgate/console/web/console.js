// Skillgate console. Every value from the server is inserted with textContent, never as HTML.
'use strict';
(function () {
  let csrf = null;
  const shown = new Map(); // request id -> { root, state, countdown, buttons, result }
  const outcomesShown = new Set();
  let clockOffset = 0; // server time - local time, in ms

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function status(text) {
    document.getElementById('status').textContent = text;
  }

  async function api(path, body) {
    const init = { credentials: 'same-origin', cache: 'no-store', headers: {} };
    if (body !== undefined) {
      init.method = 'POST';
      init.headers['Content-Type'] = 'application/json';
      init.headers['X-CSRF-Token'] = csrf;
      init.body = JSON.stringify(body);
    }
    const r = await fetch(path, init);
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    return { ok: r.ok, status: r.status, data: data || {} };
  }

  function locked(on) {
    document.getElementById('locked').hidden = !on;
    document.body.dataset.locked = on ? 'true' : 'false';
  }

  function field(dl, name, label, value) {
    const dt = el('dt', null, label);
    const dd = el('dd', null, value);
    dd.dataset.field = name;
    dl.append(dt, dd);
    return dd;
  }

  function fileTable(files) {
    const t = el('table', 'files');
    const head = el('tr');
    head.append(el('th', null, 'File'), el('th', null, 'Bytes'), el('th', null, 'SHA-256'));
    t.append(head);
    for (const f of files) {
      const tr = el('tr');
      tr.append(el('td', null, f.path), el('td', null, f.size), el('td', null, f.sha256));
      t.append(tr);
    }
    return t;
  }

  // A file key such as Linux's "(dev=fe00,ino=42)" already carries its parentheses; others get one pair.
  function parenthesised(text) {
    return text.startsWith('(') && text.endsWith(')') ? text : '(' + text + ')';
  }

  function list(values) {
    return values.length ? values.join('; ') : '(none)';
  }

  function renderDetails(root, req) {
    const d = req.details;
    root.append(el('p', 'warning', d.warning));
    const dl = el('dl');
    field(dl, 'kind', 'Request', req.kind.toLowerCase());
    if (d.skill) field(dl, 'skill', 'Skill', d.skill);
    if (d.description !== undefined) field(dl, 'description', 'Description (the skill\'s own words)', d.description);
    if (d.run) field(dl, 'run', 'Run', d.run);
    field(dl, 'agent', 'Agent', d.agent);
    if (req.kind === 'ACTIVATION') {
      field(dl, 'agentKind', 'Agent kind / version', d.agentKind + ' ' + d.agentVersion);
    }
    if (d.revision) field(dl, 'revision', 'Revision', d.revision);
    if (d.location) {
      field(dl, 'skillRoot', 'Skill root', d.location.root);
      field(dl, 'skillDirectory', 'Skill directory', d.location.directory);
      for (const f of d.location.nameFindings) {
        field(dl, 'nameWarning', 'NAME WARNING', f.code + ': ' + f.message).classList.add('warning');
      }
    }
    if (d.workspace) field(dl, 'workspace', 'Workspace', d.workspace.realPath + ' ' + parenthesised(d.workspace.fileKey));
    if (req.kind === 'EXECUTION') {
      field(dl, 'entrypoint', 'Entrypoint', d.entrypoint);
      field(dl, 'argv', 'Exact argv (no shell)', JSON.stringify(d.argv));
      field(dl, 'runtime', 'Runtime', d.runtime.executable + ' ' + d.runtime.version +
        (d.runtime.sha256 ? ' (' + d.runtime.sha256 + ')' : ''));
      field(dl, 'limits', 'Limits', 'timeout ' + d.limits.timeoutMillis + ' ms, stdout ' + d.limits.outputBytes + ' bytes');
      field(dl, 'enforced', 'Enforced', 'isolation: ' + d.enforcement.isolation + '; ' + list(d.enforcement.enforced));
      field(dl, 'notEnforced', 'NOT enforced', list(d.enforcement.notEnforced));
      field(dl, 'inputDigest', 'Input digest', d.inputDigest);
    }
    if (req.kind === 'ACTIVATION') {
      field(dl, 'contract', 'Contract', d.contract);
      field(dl, 'contractDigest', 'Contract digest', d.contractDigest || '(none)');
    }
    field(dl, 'createdAt', 'Created', d.createdAt);
    field(dl, 'expiresAt', 'Answer by', req.deadline);
    root.append(dl);
    if (d.files) {
      root.append(el('h4', null, 'Files (' + d.files.length + (d.totalBytes !== undefined ? ', ' + d.totalBytes + ' bytes' : '') + ')'));
      root.append(fileTable(d.files));
    }
    if (req.kind === 'EXECUTION') {
      root.append(el('h4', null, 'Input'));
      const pre = el('pre', 'input', d.input);
      pre.dataset.field = 'input';
      root.append(pre);
    }
    if (req.kind === 'WORKFLOW') {
      root.append(el('h4', null, 'Steps'));
      const t = el('table', 'steps');
      for (const s of d.steps) {
        const tr = el('tr');
        tr.append(el('td', null, s.skill), el('td', null, s.revision), el('td', null, s.inputDigest));
        t.append(tr);
      }
      root.append(t);
    }
  }

  function addRequest(req) {
    const root = el('article', 'request');
    root.id = 'req-' + req.id;
    root.dataset.id = req.id;
    const head = el('h3');
    const title = el('span', 'title', (req.details.skill || 'workflow plan') + ' — ');
    const state = el('span', 'state');
    const countdown = el('span', 'countdown');
    head.append(title, state, el('span', null, ' '), countdown);
    root.append(head);
    renderDetails(root, req);
    const actions = el('div', 'actions');
    const approve = el('button', 'approve', 'Approve');
    approve.type = 'button';
    const deny = el('button', 'deny', 'Deny');
    deny.type = 'button';
    approve.addEventListener('click', () => decide(req.id, 'approve'));
    deny.addEventListener('click', () => decide(req.id, 'deny'));
    actions.append(approve, deny);
    const source = el('pre', 'source');
    source.hidden = true;
    if (req.hasSource) {
      const view = el('button', 'view-source', req.kind === 'ACTIVATION' ? 'Show SKILL.md' : 'Show entrypoint source');
      view.type = 'button';
      view.addEventListener('click', () => showSource(req.id, source));
      actions.append(view);
    }
    const result = el('p', 'result');
    root.append(actions, source, result);
    const entry = { root, state, countdown, approve, deny, result, deadline: Date.parse(req.deadline), current: null };
    shown.set(req.id, entry);
    return entry;
  }

  function update(entry, req) {
    if (entry.current !== req.state) {
      entry.current = req.state;
      entry.state.textContent = req.state;
      entry.state.className = 'state ' + req.state;
      entry.root.className = 'request ' + req.state;
      entry.root.dataset.state = req.state;
      const pending = req.state === 'PENDING';
      entry.approve.disabled = !pending;
      entry.deny.disabled = !pending;
      if (!pending) entry.countdown.textContent = req.decidedAt ? '(' + req.decidedAt + ')' : '';
    }
    if (req.state === 'PENDING') tick(entry);
  }

  function tick(entry) {
    const left = Math.max(0, Math.floor((entry.deadline - (Date.now() + clockOffset)) / 1000));
    entry.countdown.textContent = left > 0 ? left + ' s left' : 'time is up';
  }

  async function decide(id, decision) {
    const entry = shown.get(id);
    const r = await api('/api/requests/' + id + '/decision', { decision: decision });
    if (r.ok) {
      entry.result.textContent = decision === 'approve' ? 'Approved.' : 'Denied.';
    } else {
      entry.result.textContent = 'Refused: ' + (r.data.code || r.status) +
        (r.data.state ? ' (' + r.data.state + ')' : '') + ' — nothing was decided.';
    }
    entry.result.dataset.code = r.ok ? 'OK' : (r.data.code || String(r.status));
    await refresh();
  }

  async function showSource(id, pre) {
    const r = await api('/api/requests/' + id + '/source');
    pre.textContent = r.ok ? r.data.text : 'Source not available: ' + (r.data.code || r.status);
    pre.hidden = false;
  }

  function outcomeView(o) {
    const div = el('div', 'outcome ' + o.status);
    div.dataset.run = o.run;
    const dl = el('dl');
    field(dl, 'status', 'Status', o.status);
    field(dl, 'skill', 'Skill', o.skill);
    field(dl, 'run', 'Run', o.run);
    field(dl, 'revision', 'Revision', o.revision);
    field(dl, 'exit', 'Exit', o.exit);
    field(dl, 'cleanup', 'Cleanup', o.cleanup.status + ' (descendants seen ' + o.cleanup.descendantsSeen + ')');
    field(dl, 'elapsed', 'Elapsed', o.elapsedMillis + ' ms');
    field(dl, 'errors', 'Errors', o.errors.length ? o.errors.map(e => e.code + ': ' + e.message).join('; ') : '(none)');
    div.append(dl);
    if (o.output !== null) {
      const pre = el('pre', 'output', o.output);
      pre.dataset.field = 'output';
      div.append(el('h4', null, 'Output (checked against the output schema)'), pre);
    }
    return div;
  }

  async function refresh() {
    const r = await api('/api/requests');
    if (!r.ok) { status('Refused: ' + (r.data.code || r.status)); return; }
    clockOffset = Date.parse(r.data.now) - Date.now();
    locked(r.data.locked);
    const box = document.getElementById('requests');
    document.getElementById('empty').hidden = r.data.requests.length > 0;
    for (const req of r.data.requests.slice().reverse()) {
      let entry = shown.get(req.id);
      if (!entry) {
        entry = addRequest(req);
        box.prepend(entry.root);
      }
      update(entry, req);
    }
    const outs = document.getElementById('outcomes');
    document.getElementById('no-outcomes').hidden = r.data.outcomes.length > 0;
    for (const o of r.data.outcomes.slice().reverse()) {
      const key = o.run + ' ' + o.at;
      if (!outcomesShown.has(key)) {
        outcomesShown.add(key);
        outs.prepend(outcomeView(o));
      }
    }
    status('Updated ' + new Date().toLocaleTimeString());
  }

  // ------------------------------------------------------------------ settings page

  let settings = null;

  function cell(tr, text) {
    tr.append(el('td', null, text));
  }

  function button(label, cls, onClick) {
    const b = el('button', cls, label);
    b.type = 'button';
    b.addEventListener('click', onClick);
    return b;
  }

  function scopeBody(s) {
    return {
      revision: s.revision, agent: s.agent, workspace: s.workspace,
      timeoutCeilingMillis: s.timeoutCeilingMillis, outputCeilingBytes: s.outputCeilingBytes
    };
  }

  async function savePolicy(mode, scopes) {
    const r = await api('/api/settings/policy', { mode: mode, scopes: scopes });
    report(r, 'Policy saved.');
  }

  function report(r, okText) {
    if (r.ok) {
      status(okText);
      renderSettings(r.data);
    } else {
      const why = (r.data.diagnostics || []).map(d => d.code + ': ' + d.message).join('; ');
      status('Refused: ' + (r.data.code || r.status) + (why ? ' — ' + why : '') + ' — nothing changed.');
      loadSettings();
    }
    document.getElementById('status').dataset.code = r.ok ? 'OK' : (r.data.code || String(r.status));
  }

  function renderSettings(s) {
    settings = s;
    locked(s.locked);
    const p = s.policy;
    document.getElementById('mode').value = p.mode;
    document.body.dataset.mode = p.mode;
    const problems = document.getElementById('policy-problems');
    problems.replaceChildren(...p.problems.map(d => el('p', 'warning', d.code + ': ' + d.message)));
    document.getElementById('safe-mode-state').textContent = p.safeMode ? 'on' : 'off';
    document.getElementById('safe-mode-toggle').textContent = p.safeMode ? 'Turn safe mode off' : 'Turn safe mode on';

    const scopes = document.querySelector('#scopes tbody');
    scopes.replaceChildren();
    p.scopes.forEach((sc, i) => {
      const tr = el('tr');
      tr.dataset.revision = sc.revision;
      cell(tr, sc.revision);
      cell(tr, sc.agent);
      cell(tr, sc.workspace.realPath);
      cell(tr, sc.timeoutCeilingMillis + ' ms, ' + sc.outputCeilingBytes + ' bytes');
      cell(tr, sc.receipt ? sc.receipt.id + ' at ' + sc.receipt.approvedAt : 'draft — not approved');
      const td = el('td');
      td.append(button('Remove', 'remove', () => {
        const rest = p.scopes.filter((_, j) => j !== i).map(scopeBody);
        savePolicy(p.mode, rest);
      }));
      tr.append(td);
      scopes.append(tr);
    });

    const cands = document.querySelector('#candidates tbody');
    cands.replaceChildren();
    for (const c of s.candidates) {
      const tr = el('tr');
      tr.dataset.revision = c.revision;
      cell(tr, c.skill);
      cell(tr, c.revision);
      cell(tr, c.agent);
      cell(tr, c.workspace.realPath);
      cell(tr, c.timeoutMillis + ' ms, ' + c.outputBytes + ' bytes');
      const td = el('td');
      if (c.trusted) {
        td.textContent = 'trusted';
      } else {
        td.append(button('Trust this revision', 'trust', async () => {
          report(await api('/api/settings/trust-request', { request: c.request }), 'Revision trusted.');
        }));
      }
      tr.append(td);
      cands.append(tr);
    }

    const trust = document.querySelector('#trust tbody');
    trust.replaceChildren();
    for (const t of s.trust) {
      const tr = el('tr');
      cell(tr, t.kind);
      cell(tr, t.skill);
      cell(tr, t.agent);
      cell(tr, t.revision);
      cell(tr, t.status);
      cell(tr, t.decidedAt);
      const td = el('td');
      if (t.status === 'TRUSTED') {
        td.append(button('Revoke', 'revoke', async () => {
          report(await api('/api/settings/trust/revoke', { id: t.id }), 'Revoked.');
        }));
      }
      tr.append(td);
      trust.append(tr);
    }

    const a = s.audit;
    document.getElementById('audit-state').textContent = a.state;
    document.getElementById('audit-detail').textContent = a.firstBadSequence !== null
      ? '— first bad record: #' + a.firstBadSequence
      : '(' + a.committedSequence + ' records verified)';
    document.getElementById('audit-diagnostics').replaceChildren(
      ...a.diagnostics.map(d => el('p', d.severity === 'ERROR' ? 'warning' : 'muted', d.code + ': ' + d.message)));
  }

  async function loadSettings() {
    const r = await api('/api/settings');
    if (r.ok) renderSettings(r.data); else status('Refused: ' + (r.data.code || r.status));
  }

  async function start() {
    const s = await api('/api/session');
    if (!s.ok) { status('Refused: ' + (s.data.code || s.status) + '. Open the console with the address the host gave you.'); return; }
    csrf = s.data.csrf;
    locked(s.data.locked);
    if (document.body.dataset.page === 'settings') {
      document.getElementById('save-mode').addEventListener('click', () => {
        const mode = document.getElementById('mode').value;
        savePolicy(mode, settings ? settings.policy.scopes.map(scopeBody) : []);
      });
      document.getElementById('safe-mode-toggle').addEventListener('click', async () => {
        const on = !(settings && settings.policy.safeMode);
        report(await api('/api/settings/safe-mode', { on: on }), on ? 'Safe mode on.' : 'Safe mode off.');
      });
      await loadSettings();
    } else {
      await refresh();
      setInterval(() => { refresh(); }, 1000);
      setInterval(() => { for (const e of shown.values()) if (e.current === 'PENDING') tick(e); }, 250);
    }
    document.body.dataset.ready = 'true';
  }

  document.addEventListener('DOMContentLoaded', start);
})();
