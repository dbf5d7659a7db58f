/* The console page: reads the JSON API and acts through its POST routes with the token (every API route needs it),
   and follows /api/events (SSE) with a single-use ticket, since EventSource sends no header. */
(function () {
  'use strict';
  const { el, tokens, when, meter, sizeMeters, diff, detail } = window.LoopConsoleRender;
  const { dollars, spendChart } = window.LoopSpendChart;
  const $ = (selector) => document.querySelector(selector);
  const state = { readOnly: true, credential: null, repos: [], loops: [], chart: null };
  // Kept for this origin only; never in the address bar after the first load.
  const STORAGE_NAME = 'loop-runtime-credential';
  const AUTH_HEADER = 'x-loop-runtime-token';

  function takeToken() {
    // Built from parts: the redactor every response passes would read the literal pattern as a credential assignment.
    const match = new RegExp('(?:^#|&)' + 'token' + '=([A-Za-z0-9_-]+)').exec(location.hash);
    if (match) {
      localStorage.setItem(STORAGE_NAME, match[1]);
      history.replaceState(null, '', location.pathname + location.search);
    }
    state.credential = localStorage.getItem(STORAGE_NAME);
  }

  function say(text, kind) {
    const box = $('#message');
    box.textContent = text;
    box.dataset.kind = kind || 'info';
    box.hidden = !text;
  }

  function needToken() {
    $('#token-form').hidden = false;
    return new Error('Paste the token printed by `loop-runtime serve` first.');
  }

  async function api(path, init) {
    if (!state.credential) throw needToken();
    const options = init || {};
    const response = await fetch(path, { ...options, headers: { ...(options.headers || {}), [AUTH_HEADER]: state.credential } });
    const body = await response.json().catch(() => ({}));
    if (response.status === 401) {
      // A wrong or replaced token: ask again rather than keep failing.
      localStorage.removeItem(STORAGE_NAME);
      state.credential = null;
      applyMode();
      throw needToken();
    }
    if (!response.ok) throw new Error((body.error && body.error.message) || `${response.status} ${response.statusText}`);
    return body;
  }

  async function post(path, body) {
    return api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body || {}) });
  }

  const repoName = (id) => (state.repos.find((repo) => repo.id === id) || { name: id }).name;
  const loopLabel = (repo, loop) => (state.repos.length > 1 ? `${repoName(repo)}/${loop}` : loop);

  /** Cost per merged change, as `loop-runtime metrics` shows it: `$2.10 · 4,200 tokens (1 merged)`. */
  function perMerged(cost) {
    if (!cost || cost.error) return 'unknown';
    if (cost.tokens === null) return cost.merged === 0 ? 'no merged change' : '—';
    const usd = cost.usd === null ? '' : `$${cost.usd.toFixed(2)}${cost.complete ? '' : '+'} · `;
    return `${usd}${tokens(Math.round(cost.tokens))} tokens (${cost.merged} merged)`;
  }

  async function loadLoops() {
    const data = await api('/api/loops');
    state.repos = data.repos;
    state.loops = data.loops;
    const body = $('#loops tbody');
    body.replaceChildren(
      ...data.loops.map((loop) =>
        el('tr', { 'data-loop': loop.id }, [
          el('td', {}, [el('strong', { text: loopLabel(loop.repo, loop.id) }), el('div', { className: 'muted', text: loop.name })]),
          el('td', { text: loop.level }),
          el('td', { text: loop.backend }),
          el('td', { text: loop.cadence }),
          el('td', { text: loop.due ? 'due now' : when(loop.nextDueAt) }),
          el('td', { text: loop.lease ? `pid ${loop.lease.pid} on ${loop.lease.host}` : '—' }),
          el('td', { className: `outcome-${loop.lastOutcome}`, text: loop.lastOutcome ? `${loop.lastOutcome} · ${when(loop.lastRunAt)}` : 'never ran' }),
          el('td', {}, [`${tokens(loop.spentToday)} / ${tokens(loop.dailyTokenCap)}`, meter(loop.spentToday, loop.dailyTokenCap)]),
          el('td', { className: 'per-merged', text: perMerged(loop.perMergedChange), title: loop.perMergedChange.error ?? `all spend over the last ${loop.perMergedChange.days} days ÷ ${loop.perMergedChange.merged} merged and kept change(s)` }),
          el('td', {}, [
            el('div', { className: 'pause-sources', text: loop.paused ? `paused by ${loop.pausedBy.map((s) => s.source).join(', ')}` : loop.lease ? 'running' : 'may run' }),
            el('button', { type: 'button', 'data-mutating': true, 'data-action': loop.pausedBy.some((s) => s.kind === 'loop-file') ? 'resume' : 'pause', onclick: () => act(loop.pausedBy.some((s) => s.kind === 'loop-file') ? 'resume' : 'pause', { repo: loop.repo, loop: loop.id }) }, [loop.pausedBy.some((s) => s.kind === 'loop-file') ? 'Resume' : 'Pause']),
          ]),
        ]),
      ),
    );
    sizeMeters(body);
    // The header says what `status` says: every pause counts, a single loop's included.
    const allSources = [...new Set(data.loops.flatMap((loop) => loop.pausedBy.filter((s) => s.kind !== 'loop-file').map((s) => s.source)))];
    const pausedLoops = data.loops.filter((loop) => loop.paused).map((loop) => loopLabel(loop.repo, loop.id));
    $('#pause-state').textContent = allSources.length
      ? `Paused by ${allSources.join(', ')}`
      : pausedLoops.length
        ? `${pausedLoops.length} of ${data.loops.length} loop(s) paused: ${pausedLoops.join(', ')}`
        : 'All loops may run';
    $('#pause-state').dataset.paused = String(pausedLoops.length > 0);
    const select = $('#history-filter select[name=loop]');
    const chosen = select.value;
    select.replaceChildren(el('option', { value: '', text: 'all' }), ...[...new Set(data.loops.map((loop) => loop.id))].map((id) => el('option', { value: id, text: id })));
    select.value = chosen;
    applyMode();
  }

  async function loadInbox() {
    const data = await api('/api/inbox');
    $('#inbox-count').textContent = String(data.items.length);
    $('#inbox-empty').hidden = data.items.length > 0;
    $('#inbox').replaceChildren(
      ...data.items.map((item) => {
        const diffBox = el('div');
        const query = `?repo=${encodeURIComponent(item.repo)}`;
        const path = `/api/inbox/${encodeURIComponent(item.id)}`;
        if (item.kind === 'delivery-failed') {
          // A verified commit whose push or pull request failed: the only action is to deliver it again.
          return el('li', { className: 'change', 'data-id': item.id }, [
            el('strong', { text: `${loopLabel(item.repo, item.pattern)} · ${item.itemKey || item.id}${item.title ? ` — ${item.title}` : ''}` }),
            el('div', { className: 'why', text: item.reason || 'verified, delivery failed' }),
            el('div', { className: 'muted', text: `${item.branch} · since ${when(item.createdAt)}` }),
            el('div', { className: 'actions' }, [
              el('button', { type: 'button', className: 'primary', 'data-mutating': true, onclick: () => redeliver(item, path, query) }, ['Retry delivery']),
            ]),
          ]);
        }
        return el('li', { className: 'change', 'data-id': item.id }, [
          el('strong', { text: `${loopLabel(item.repo, item.pattern)} · ${item.itemKey || item.id}${item.title ? ` — ${item.title}` : ''}` }),
          el('div', { className: 'why', text: `Escalated because: ${item.reason || 'unknown'}` }),
          el('div', { className: 'muted', text: `${item.branch} · since ${when(item.createdAt)}` }),
          el('div', { className: 'actions' }, [
            el('button', { type: 'button', onclick: async () => { const d = await api(`${path}/diff${query}`); diffBox.replaceChildren(el('p', { text: `Gate now: ${d.gate.allowed ? 'allowed' : `${d.gate.trigger} — ${d.gate.reason}`}` }), diff(d.patch)); } }, ['Show diff']),
            el('button', { type: 'button', className: 'primary', 'data-mutating': true, onclick: () => approve(item, path, query) }, ['Approve']),
            el('button', { type: 'button', 'data-mutating': true, onclick: () => act('reject', { path: `${path}/reject${query}` }) }, ['Reject']),
          ]),
          diffBox,
        ]);
      }),
    );
    applyMode();
  }

  async function redeliver(item, path, query) {
    try {
      const answer = await post(`${path}/deliver${query}`, {});
      const delivery = answer.result.delivery;
      if (delivery.ok === false) say(`Delivery of ${item.id} failed again: ${delivery.message}`, 'error');
      else say(`Delivered ${item.id}: ${delivery.kind}${delivery.url ? ` ${delivery.url}` : ''}.`);
      await refresh();
    } catch (error) {
      say(error.message, 'error');
    }
  }

  async function approve(item, path, query) {
    try {
      let answer = await post(`${path}/approve${query}`, {});
      if (answer.result.status === 'needs-confirmation') {
        const gate = answer.result.gate;
        if (!window.confirm(`The gate still escalates this change (${gate.trigger}: ${gate.reason}). Apply it anyway?`)) return;
        answer = await post(`${path}/approve${query}`, { yes: true });
      }
      say(`Approved ${item.id}: committed ${String(answer.result.commit).slice(0, 12)} on ${answer.result.branch}.`);
      await refresh();
    } catch (error) {
      say(error.message, 'error');
    }
  }

  async function act(action, options) {
    try {
      if (action === 'reject') await post(options.path, {});
      else await post(`/api/${action}`, { ...(options.repo ? { repo: options.repo } : {}), ...(options.loop ? { loop: options.loop } : {}) });
      say(action === 'reject' ? 'Rejected.' : `${action === 'pause' ? 'Paused' : 'Resumed'} ${options.loop || 'every loop'}.`);
      await refresh();
    } catch (error) {
      say(error.message, 'error');
    }
  }

  async function loadSpend() {
    const data = await api('/api/spend?days=30');
    const rows = data.repos.flatMap((report) => report.loops.map((loop) => ({ ...loop, repo: report.repo, days: report.days })));
    $('#burn').replaceChildren(
      ...rows.map((loop) => {
        const today = dollars(loop.costUsdPerDay ? loop.costUsdPerDay.at(-1) : null, loop.costCompletePerDay ? loop.costCompletePerDay.at(-1) : true);
        return el('div', { className: 'burn-row', 'data-loop': loop.id }, [el('span', { className: 'label', text: loopLabel(loop.repo, loop.id) }), meter(loop.spentToday, loop.dailyTokenCap), el('span', { text: `${tokens(Math.max(0, loop.dailyTokenCap - loop.spentToday))} left${today ? ` · ${today} today` : ''}` })]);
      }),
    );
    sizeMeters($('#burn'));
    const days = rows[0] ? rows[0].days : [];
    const box = $('#spend-chart');
    const width = Math.max(200, box.clientWidth);
    const { opts, series } = spendChart(rows, days, width, (loop) => loopLabel(loop.repo, loop.id));
    if (state.chart) state.chart.destroy();
    state.chart = typeof window.uPlot === 'function' && rows.length ? new window.uPlot(opts, series, box) : null;
  }

  async function loadRuns() {
    const form = new FormData($('#history-filter'));
    const query = new URLSearchParams([...form.entries()].filter(([, value]) => value));
    const data = await api(`/api/runs?${query}`);
    $('#runs tbody').replaceChildren(
      ...data.runs.map((run) =>
        el('tr', { 'data-tick': run.tick_id || '', onclick: () => run.tick_id && showDetail(run.repo, run.tick_id) }, [
          el('td', { text: run.run_id }),
          el('td', { text: loopLabel(run.repo, run.pattern || '') }),
          el('td', { className: `outcome-${run.state || run.outcome}`, text: run.state || run.outcome || '' }),
          el('td', { text: run.kind || '' }),
          el('td', { text: tokens(run.tokens_estimate) }),
          el('td', { text: run.tick_id || '' }),
        ]),
      ),
    );
  }

  async function showDetail(repo, tickId) {
    const data = await api(`/api/runs/${encodeURIComponent(tickId)}?repo=${encodeURIComponent(repo)}`);
    const box = $('#detail');
    box.replaceChildren(...detail(data));
    box.hidden = false;
  }

  function liveEvent(event, replayed) {
    const list = $('#live');
    let card = list.querySelector(`[data-tick="${CSS.escape(event.tickId)}"]`);
    if (!card) {
      card = el('li', { className: 'tick', 'data-tick': event.tickId, 'data-loop': event.loop, 'data-state': 'running' }, [el('header', {}, [el('span', { text: loopLabel(event.repo, event.loop) }), el('span', { className: 'muted', text: event.tickId }), el('span', { className: 'outcome', text: 'running' })]), el('ol', { className: 'phases' })]);
      list.prepend(card);
      while (list.children.length > 8) list.lastElementChild.remove();
    }
    $('#live-empty').hidden = true;
    const phases = card.querySelector('.phases');
    if (event.type === 'phase-start' || event.type === 'phase-end') {
      let chip = phases.querySelector(`[data-phase="${CSS.escape(event.phase)}"][data-state="running"]`);
      if (!chip) {
        chip = el('li', { className: 'phase', 'data-phase': event.phase });
        phases.append(chip);
      }
      chip.dataset.state = event.type === 'phase-start' ? 'running' : 'done';
      chip.textContent = event.type === 'phase-end' ? `${event.phase}${event.tokens ? ` · ${tokens(event.tokens)}` : ''}` : `${event.phase}…`;
      if (event.note) chip.title = event.note;
    } else if (event.type === 'tick-end') {
      card.dataset.state = 'done';
      card.dataset.kind = event.kind;
      const outcome = card.querySelector('.outcome');
      outcome.textContent = event.kind;
      outcome.className = `outcome kind-${event.kind}`;
      if (!replayed) refresh();
    } else if (event.type === 'tick-result' && !replayed) {
      refresh(); // the tick's lease is released after its result is written
    }
  }

  let source = null;
  async function connect() {
    const badge = $('#live-status');
    const { ticket } = await api('/api/events/ticket');
    source = new EventSource('/api/events?ticket=' + encodeURIComponent(ticket));
    source.addEventListener('hello', () => {
      badge.textContent = 'live';
      badge.dataset.live = 'connected';
    });
    source.addEventListener('hello', () => $('#live').replaceChildren());
    source.addEventListener('replay', (message) => liveEvent(JSON.parse(message.data), true));
    source.addEventListener('tick', (message) => liveEvent(JSON.parse(message.data), false));
    source.addEventListener('error', () => {
      badge.textContent = 'reconnecting…';
      badge.dataset.live = 'connecting';
      // A ticket works once: the browser's own retry would be refused, so reconnect with a new one.
      source.close();
      setTimeout(() => connect().catch((error) => say(error.message, 'error')), 1000);
    });
  }

  function applyMode() {
    $('#mode').textContent = state.credential ? (state.readOnly ? 'read-only' : 'token set') : 'no token';
    for (const button of document.querySelectorAll('[data-mutating]')) button.hidden = state.readOnly;
    $('#token-form').hidden = Boolean(state.credential);
  }

  let refreshing = null;
  let again = false;
  async function refresh() {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    refreshing = Promise.all([loadLoops(), loadInbox(), loadSpend(), loadRuns()])
      .catch((error) => say(error.message, 'error'))
      .finally(() => {
        refreshing = null;
        document.body.dataset.loaded = 'true';
        if (again) {
          again = false;
          refresh();
        }
      });
    return refreshing;
  }

  let opened = false;
  /** Everything the page shows needs the token, so it loads once one is set. */
  async function open() {
    if (opened || !state.credential) return;
    const health = await api('/api/health');
    opened = true;
    state.readOnly = health.readOnly;
    state.repos = health.repos;
    applyMode();
    say('');
    await connect();
    await refresh();
  }

  async function start() {
    takeToken();
    applyMode();
    $('#token-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const value = $('#token-input').value.trim();
      if (value) localStorage.setItem(STORAGE_NAME, value);
      state.credential = value || null;
      applyMode();
      open().catch((error) => say(error.message, 'error'));
    });
    $('#pause-all').addEventListener('click', () => act('pause', {}));
    $('#resume-all').addEventListener('click', () => act('resume', {}));
    $('#history-filter').addEventListener('change', () => loadRuns().catch((error) => say(error.message, 'error')));
    if (!state.credential) {
      document.body.dataset.loaded = 'true';
      throw needToken();
    }
    await open();
  }

  // For the browser tests: the spend chart, to measure its canvas-drawn axis labels against the panel.
  window.LoopConsole = { spendChart: () => state.chart };
  start().catch((error) => say(error.message, 'error'));
})();
