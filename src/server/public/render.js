/* Small DOM helpers for the console page: no framework, text only (never innerHTML), so nothing an API returns can become markup. */
(function () {
  'use strict';
  function el(tag, attributes, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name === 'text') node.textContent = String(value);
      else if (name === 'className') node.className = value;
      else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of [].concat(children || [])) if (child !== null && child !== undefined) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    return node;
  }
  const tokens = (n) => Number(n || 0).toLocaleString('en-US');
  function when(iso) {
    if (!iso) return '—';
    const date = new Date(iso);
    if (Number.isNaN(date.getTime())) return iso;
    return date.toISOString().replace('T', ' ').slice(0, 16) + 'Z';
  }
  function meter(spent, cap) {
    const fraction = cap > 0 ? Math.min(1, spent / cap) : 0;
    return el('div', { className: 'meter' + (spent > cap ? ' over' : ''), role: 'meter', 'aria-valuenow': spent, 'aria-valuemax': cap, title: `${tokens(spent)} of ${tokens(cap)} tokens` }, [el('span', { style: null, 'data-width': fraction })]);
  }
  /** Sets meter widths through the CSSOM (the page's CSP allows no inline style attributes). */
  function sizeMeters(root) {
    for (const bar of root.querySelectorAll('[data-width]')) bar.style.width = `${Math.round(Number(bar.dataset.width) * 100)}%`;
  }
  function diff(patch) {
    const pre = el('pre', { className: 'diff' });
    for (const line of String(patch || '').split('\n')) {
      const kind = line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : null;
      pre.append(el('span', { className: kind }, [line]), '\n');
    }
    return pre;
  }
  function detail(data) {
    const parts = [el('h3', { text: `Tick ${data.tickId}` })];
    const entry = data.entry;
    if (entry) parts.push(el('p', { text: `${entry.pattern} · ${entry.run_id} · ${entry.outcome} · ~${tokens(entry.tokens_estimate)} tokens` }));
    const result = data.result;
    if (!result) {
      parts.push(el('p', { className: 'muted', text: 'The full result is no longer in the event journal (it keeps the most recent ticks); the run-log line is above.' }));
      return parts;
    }
    parts.push(el('p', { className: `kind-${result.kind}`, text: `Result: ${result.kind}${result.reason ? ` — ${result.reason}` : ''}${result.message ? ` — ${result.message}` : ''}` }));
    if (result.item) parts.push(el('p', { text: `Item: ${result.item.key} — ${result.item.title || ''}` }));
    const findings = result.findings || (result.item ? [] : []);
    if (findings.length) parts.push(el('h3', { text: 'Findings' }), el('ul', {}, findings.map((f) => el('li', { text: `${f.title || f.summary || JSON.stringify(f)}` }))));
    parts.push(el('h3', { text: 'Steps' }), el('ol', {}, (result.steps || []).map((s) => el('li', { text: `${s.phase}: ${s.note} (${tokens(s.tokens)} tokens)` }))));
    const verification = result.verification;
    if (verification) {
      parts.push(el('h3', { text: `Verification: ${verification.verdict}` }));
      for (const evidence of verification.evidence || []) {
        parts.push(el('p', { text: `$ ${evidence.command} → exit ${evidence.exitCode}${evidence.timedOut ? ' (timed out)' : ''}` }));
        const tail = evidence.outputTail || evidence.output || evidence.stdout || '';
        if (tail) parts.push(el('pre', { text: tail }));
      }
      if ((verification.reasons || []).length) parts.push(el('ul', {}, verification.reasons.map((r) => el('li', { text: r }))));
    }
    if (result.gate) parts.push(el('h3', { text: 'Gate' }), el('p', { text: result.gate.allowed ? `${result.gate.action}: allowed` : `${result.gate.action}: ${result.gate.trigger || 'escalated'} — ${result.gate.reason || ''}` }));
    if (result.commit) parts.push(el('h3', { text: 'Commit' }), el('p', { text: `${String(result.commit.sha || '').slice(0, 12)} on ${result.commit.branch || ''}` }));
    if (result.delivery && result.delivery.url) {
      parts.push(el('h3', { text: 'Pull request' }), el('p', {}, [/^https:\/\//.test(result.delivery.url) ? el('a', { href: result.delivery.url, rel: 'noreferrer', target: '_blank', text: result.delivery.url }) : result.delivery.url]));
    }
    return parts;
  }
  window.LoopConsoleRender = { el, tokens, when, meter, sizeMeters, diff, detail };
})();
