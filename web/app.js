// canju's page: puzzles, the table explorer and the theory reports, on the JSON API of
// `canju serve`. The board is the server's own SVG diagram (the look of `canju diagram`),
// whose points carry data-square for clicks.
'use strict';

const $ = (s) => document.querySelector(s);
const START = 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1';

async function api(path, options) {
  const r = await fetch(path, options);
  const type = r.headers.get('content-type') || '';
  const body = type.includes('json') ? await r.json() : await r.text();
  if (!r.ok) {
    throw new Error((body && body.error) || String(body) || `HTTP ${r.status}`);
  }
  return body;
}
const post = (path, data) =>
  api(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(data) });
const enc = encodeURIComponent;
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------- the board

class Board {
  constructor(el) {
    this.el = el;
    this.enabled = false;
    this.onMove = null;
    this.onPoint = null;
    this.legal = [];
    this.selected = null;
    el.addEventListener('click', (e) => this.click(e));
  }

  // Draws a position (with arrows and marked points) and learns its legal moves.
  async show(fen, { arrows = [], marks = [] } = {}) {
    // only the latest request draws: an older answer arriving late is dropped
    const generation = (this.generation = (this.generation || 0) + 1);
    const [svg, info] = await Promise.all([
      api(`/api/board.svg?fen=${enc(fen)}&arrow=${arrows.join(',')}&mark=${marks.join(',')}`),
      api(`/api/moves?fen=${enc(fen)}`),
    ]);
    if (generation !== this.generation) return info;
    this.el.innerHTML = svg;
    this.fen = info.fen;
    this.info = info;
    this.legal = info.moves;
    this.selected = null;
    return info;
  }

  click(e) {
    const t = e.target.closest('[data-square]');
    if (!t) return;
    const sq = t.dataset.square;
    if (this.onPoint) {
      this.onPoint(sq);
      return;
    }
    if (!this.enabled) return;
    if (this.selected) {
      const mv = this.legal.find((m) => m.iccs === this.selected + sq);
      if (mv) {
        this.clear();
        this.selected = null;
        this.onMove && this.onMove(mv);
        return;
      }
    }
    this.clear();
    const targets = this.legal.filter((m) => m.iccs.startsWith(sq));
    if (targets.length) {
      this.selected = sq;
      this.ring(sq, 'selected', 25, '#1565c0');
      for (const m of targets) this.ring(m.iccs.slice(2), 'target', 9, '#2e7d32', true);
    } else {
      this.selected = null;
    }
  }

  centre(sq) {
    const r = this.el.querySelector(`rect.point[data-square="${sq}"]`);
    if (!r) return null;
    return [+r.getAttribute('x') + +r.getAttribute('width') / 2, +r.getAttribute('y') + +r.getAttribute('height') / 2];
  }

  ring(sq, cls, radius, colour, filled = false) {
    const c = this.centre(sq);
    const svg = this.el.querySelector('svg');
    if (!c || !svg) return;
    const el = document.createElementNS('http://www.w3.org/2000/svg', 'circle');
    el.setAttribute('class', `highlight ${cls}`);
    el.setAttribute('data-square', sq);
    el.setAttribute('cx', c[0]);
    el.setAttribute('cy', c[1]);
    el.setAttribute('r', radius);
    el.setAttribute('pointer-events', 'none');
    if (filled) {
      el.setAttribute('fill', colour);
      el.setAttribute('fill-opacity', '0.75');
    } else {
      el.setAttribute('fill', 'none');
      el.setAttribute('stroke', colour);
      el.setAttribute('stroke-width', '4');
    }
    svg.appendChild(el);
  }

  clear() {
    this.el.querySelectorAll('.highlight').forEach((e) => e.remove());
  }
}

// ---------------------------------------------------------------- tabs

function showTab(name) {
  document.querySelectorAll('.tab').forEach((t) => (t.hidden = t.id !== name));
  document.querySelectorAll('.tab-button').forEach((b) => b.classList.toggle('active', b.dataset.tab === name));
  if (location.hash !== `#${name}`) history.replaceState(null, '', `#${name}`);
  if (name === 'explorer' && !E.loaded) explore(E.fen);
  if (name === 'theory' && !T.loaded) loadTheory();
}
document.querySelectorAll('.tab-button').forEach((b) => b.addEventListener('click', () => showTab(b.dataset.tab)));

// ---------------------------------------------------------------- puzzles

const P = { list: [], current: null, line: [], done: false, failed: false };
const puzzleBoard = new Board($('#puzzle-board'));

function feedback(html) {
  $('#feedback').innerHTML = html;
}

async function loadPuzzles() {
  P.list = await api('/api/puzzles');
  const fill = (sel, values) => {
    for (const v of values) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = v;
      sel.appendChild(o);
    }
  };
  fill($('#f-collection'), [...new Set(P.list.map((p) => p.collection))].sort());
  fill($('#f-tag'), [...new Set(P.list.flatMap((p) => p.tags))].sort());
  fill($('#f-difficulty'), [...new Set(P.list.map((p) => p.difficulty))].sort((a, b) => a - b));
  for (const id of ['#f-collection', '#f-tag', '#f-difficulty', '#f-progress']) $(id).addEventListener('change', renderList);
  renderList();
}

function filtered() {
  const c = $('#f-collection').value;
  const t = $('#f-tag').value;
  const d = $('#f-difficulty').value;
  const pr = $('#f-progress').value;
  return P.list.filter(
    (p) =>
      (!c || p.collection === c) &&
      (!t || p.tags.includes(t)) &&
      (!d || String(p.difficulty) === d) &&
      (!pr || (pr === 'unsolved' ? p.progress !== 'solved' : p.progress === pr)),
  );
}

function renderList() {
  const ul = $('#puzzle-list');
  ul.innerHTML = '';
  const list = filtered();
  $('#puzzle-count').textContent = `${list.length} of ${P.list.length} puzzles, ${P.list.filter((p) => p.progress === 'solved').length} solved`;
  for (const p of list) {
    const li = document.createElement('li');
    li.dataset.id = p.id;
    if (P.current && P.current.id === p.id) li.classList.add('current');
    const mark = p.progress === 'solved' ? '✓' : p.progress === 'failed' ? '✗' : '';
    li.innerHTML = `<span>${esc(p.id)} · ${esc(p.title)}</span><span>${'★'.repeat(p.difficulty)} <b class="mark-${p.progress || 'none'}">${mark}</b></span>`;
    li.title = p.goal_text;
    li.addEventListener('click', () => openPuzzle(p));
    ul.appendChild(li);
  }
}

async function openPuzzle(p) {
  P.current = p;
  P.line = [];
  P.done = false;
  P.failed = false;
  $('#puzzle-title').textContent = `${p.id} · ${p.title}`;
  $('#puzzle-goal').textContent = `${p.goal_text} — ${p.side_to_move === 'red' ? '红方' : '黑方'} (${p.side_to_move}) to move`;
  feedback('');
  document.querySelectorAll('#puzzle-list li').forEach((li) => li.classList.toggle('current', li.dataset.id === p.id));
  await showPuzzle();
}

async function showPuzzle(arrows = []) {
  const p = P.current;
  const info = await api(`/api/moves?fen=${enc(p.fen)}&play=${P.line.join(',')}`);
  if (P.current !== p) return;
  await puzzleBoard.show(info.fen, { arrows });
  if (P.current !== p) return;
  puzzleBoard.enabled = !P.done && !info.game_over && info.side_to_move === p.side_to_move;
  renderPuzzleMoves();
}

function renderPuzzleMoves(texts) {
  const ol = $('#puzzle-moves');
  ol.innerHTML = '';
  (texts || P.texts || []).slice(0, P.line.length).forEach((t, i) => {
    const li = document.createElement('li');
    li.textContent = t;
    li.className = i % 2 ? 'defender' : 'player';
    if (i % 2 === 0) li.dataset.number = `${i / 2 + 1}.`;
    ol.appendChild(li);
  });
}

async function recordResult(solved) {
  try {
    await post(`/api/puzzles/${enc(P.current.id)}/result`, { solved });
    const p = P.list.find((x) => x.id === P.current.id);
    if (p && p.progress !== 'solved') p.progress = solved ? 'solved' : 'failed';
    renderList();
  } catch (e) {
    feedback(`${$('#feedback').innerHTML} <span class="error">(progress not saved: ${esc(e.message)})</span>`);
  }
}

puzzleBoard.onMove = async (mv) => {
  puzzleBoard.enabled = false;
  const tried = P.line.concat([mv.iccs]);
  const p = P.current;
  try {
    const after = await api(`/api/moves?fen=${enc(p.fen)}&play=${tried.join(',')}`);
    await puzzleBoard.show(after.fen, { arrows: [mv.iccs] });
    feedback('<span class="muted">checking against perfect play…</span>');
    const res = await post(`/api/puzzles/${enc(p.id)}/check`, { moves: tried });
    P.texts = res.moves.map((m) => m.move);
    const mine = res.moves.filter((m) => m.by === 'player').pop();
    if (mine.feedback === 'mistake') {
      P.line = tried;
      P.failed = true;
      P.done = true;
      renderPuzzleMoves();
      feedback(`<span class="mistake">✗ 错着 mistake</span> — ${esc(mine.move)} loses the goal${res.refutation ? `; refutation: <b>${esc(res.refutation)}</b>` : ''}. Undo and try again.`);
      await recordResult(false);
      return;
    }
    const verdict =
      mine.feedback === 'good'
        ? `<span class="good">✓ 好棋 good</span> — still winning, ${mine.slower} move${mine.slower === 1 ? '' : 's'} slower than the best`
        : '<span class="best">✓ 最佳 best</span>';
    feedback(verdict);
    P.line = tried;
    renderPuzzleMoves();
    const last = res.moves[res.moves.length - 1];
    if (res.moves.length > tried.length && last.by === 'defender') {
      await sleep(450);
      P.line = res.moves.map((m) => m.iccs);
      await showPuzzle([last.iccs]);
      feedback(`${verdict}; reply <b>${esc(last.move)}</b>`);
    } else {
      await showPuzzle([mv.iccs]);
    }
    if (res.solved) {
      P.done = true;
      puzzleBoard.enabled = false;
      feedback(`<span class="solved">解出 Solved!</span> ${verdict}`);
      if (!P.failed) await recordResult(true);
    }
  } catch (e) {
    feedback(`<span class="error">${esc(e.message)}</span>`);
    await showPuzzle();
  }
};

$('#p-hint').addEventListener('click', async () => {
  if (!P.current || P.done) return;
  feedback('<span class="muted">thinking…</span>');
  try {
    const h = await post(`/api/puzzles/${enc(P.current.id)}/hint`, { moves: P.line });
    if (!h.iccs) {
      feedback(esc(h.note));
      return;
    }
    await showPuzzle([h.iccs]);
    feedback(`hint: <b>${esc(h.chinese)}</b>`);
  } catch (e) {
    feedback(`<span class="error">${esc(e.message)}</span>`);
  }
});

$('#p-undo').addEventListener('click', async () => {
  if (!P.current || !P.line.length) return;
  // back to before the player's last move (and the reply to it)
  let n = P.line.length - 1;
  if (n % 2 === 1) n -= 1;
  P.line = P.line.slice(0, n);
  P.done = false;
  feedback('');
  await showPuzzle();
});

$('#p-solution').addEventListener('click', async () => {
  const p = P.current;
  if (!p) return;
  const text = p.line_chinese.map((m, i) => (i % 2 ? m : `${i / 2 + 1}. ${m}`)).join(' ');
  P.done = true;
  await showPuzzle(p.line.length ? [p.line[0]] : []);
  feedback(`solution: ${esc(text)}`);
});

$('#p-next').addEventListener('click', () => {
  const list = filtered();
  if (!list.length) return;
  const at = P.current ? list.findIndex((p) => p.id === P.current.id) : -1;
  const rest = list.slice(at + 1).concat(list.slice(0, at + 1));
  openPuzzle(rest.find((p) => p.progress !== 'solved') || rest[0]);
});

// ---------------------------------------------------------------- explorer

const E = { fen: START, history: [], edit: false, piece: null, loaded: false };
const exBoard = new Board($('#explorer-board'));

async function explore(fen) {
  E.loaded = true;
  try {
    const info = await exBoard.show(fen);
    E.fen = info.fen;
    $('#fen').value = info.fen;
    exBoard.enabled = !E.edit;
    const end = info.game_over ? ` — ${info.side_to_move} has no move (${info.game_over}): lost` : info.in_check ? ' — in check' : '';
    const composed = info.unreachable ? ` — a composed position (${info.unreachable})` : '';
    $('#e-status').textContent = `${info.side_to_move} to move, ${info.pieces} pieces${end}${composed}`;
    $('#e-solution').innerHTML = '';
    await probe(info);
  } catch (e) {
    $('#e-status').innerHTML = `<span class="error">${esc(e.message)}</span>`;
  }
}

async function probe(info) {
  const tbody = $('#e-moves tbody');
  tbody.innerHTML = '';
  const row = (m, verdict, plies, byRule) => {
    const tr = document.createElement('tr');
    const by = byRule != null ? `by rule, level ${byRule}` : '';
    tr.innerHTML = `<td>${esc(m.chinese)}</td><td>${esc(m.iccs)}</td><td class="verdict-${verdict}">${esc(verdict)}</td><td>${plies ?? by}</td>`;
    tr.addEventListener('click', () => play(m.iccs));
    tbody.appendChild(tr);
  };
  try {
    const p = await api(`/api/probe?fen=${enc(E.fen)}&rules=${enc($('#e-rules').value)}`);
    const how = p.plies != null ? ` in ${p.plies} plies` : p.by_rule != null ? ` by the perpetual-check rule (长将作负), level ${p.by_rule}` : '';
    $('#e-verdict').textContent = `${p.material_chinese} (${p.material}), rules ${p.rules}: ${p.verdict}${how} for ${info.side_to_move}`;
    for (const m of p.moves) row(m, m.verdict, m.plies, m.by_rule);
  } catch (e) {
    // (the server's message may say "no table value" itself: a composed position)
    const why = e.message.split(';')[0].replace(/^no table value: /, '');
    $('#e-verdict').textContent = `No table value (${why}). “Solve” below proves forced mates.`;
    for (const m of info.moves) row(m, '', null, null);
  }
}

async function play(iccs) {
  const info = await api(`/api/moves?fen=${enc(E.fen)}&play=${iccs}`);
  E.history.push(E.fen);
  await explore(info.fen);
}
exBoard.onMove = (mv) => play(mv.iccs);

$('#e-load').addEventListener('click', () => {
  E.history.push(E.fen);
  explore($('#fen').value.trim());
});
$('#fen').addEventListener('keydown', (e) => e.key === 'Enter' && $('#e-load').click());
$('#e-rules').addEventListener('change', () => E.fen && explore(E.fen));
// the server's rule set: the explorer's default and the footer
api('/api').then((a) => {
  if ($('#e-rules').value !== a.rules) {
    $('#e-rules').value = a.rules;
    if (E.loaded) explore(E.fen);
  }
  $('#footer').textContent = `canju — perfect play from its own tables; puzzles and theory under rules ${a.rules}: ${a.rules === 'asian' ? 'perpetual check loses (长将作负)' : 'endless play is a draw'}`;
}).catch(() => {});
$('#e-start').addEventListener('click', () => {
  E.history.push(E.fen);
  explore(START);
});
$('#e-back').addEventListener('click', () => E.history.length && explore(E.history.pop()));
$('#e-copy').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(E.fen);
    $('#e-status').textContent = 'FEN copied';
  } catch {
    $('#fen').select();
    document.execCommand('copy');
    $('#e-status').textContent = 'FEN selected and copied';
  }
});
$('#e-solve').addEventListener('click', async () => {
  const out = $('#e-solution');
  out.innerHTML = '<span class="muted">proving…</span>';
  try {
    const s = await api(`/api/solve?fen=${enc(E.fen)}&max_moves=${$('#e-max').value}&time=${$('#e-time').value}`);
    const moves = s.winning_moves.map((m) => `${esc(m.chinese)} (${m.plies} plies)`).join(', ');
    const line = s.pv.map((m) => esc(m.chinese)).join(' ');
    out.innerHTML =
      s.verdict === 'win'
        ? `<p><b>win in ${s.plies} plies (${s.moves} moves)</b>: ${moves}</p><p class="muted">line: ${line}</p>`
        : s.verdict === 'none'
          ? `<p>no forced win within ${s.max_moves} moves (proven)</p>`
          : `<p>unknown: stopped at ${s.searched_plies} plies; no win that short</p>`;
  } catch (e) {
    out.innerHTML = `<span class="error">${esc(e.message)}</span>`;
  }
});

// the editor: place pieces by clicking, on a board kept as a FEN
const PIECES = 'KABNRCPkabnrcp';
const NAMES = { K: '帅', A: '仕', B: '相', N: '马', R: '车', C: '炮', P: '兵', k: '将', a: '士', b: '象', n: '马', r: '车', c: '炮', p: '卒' };
function fenGrid(fen) {
  const [board, side] = fen.split(' ');
  const grid = board.split('/').map((rank) => {
    const row = [];
    for (const ch of rank) {
      if (/\d/.test(ch)) row.push(...Array(+ch).fill(''));
      else row.push(ch);
    }
    return row;
  });
  return { grid, side: side || 'w' };
}
function gridFen({ grid, side }) {
  const ranks = grid.map((row) => {
    let s = '';
    let n = 0;
    for (const c of row) {
      if (c) {
        if (n) s += n;
        n = 0;
        s += c;
      } else n += 1;
    }
    return s + (n ? n : '');
  });
  return `${ranks.join('/')} ${side} - - 0 1`;
}
function buildPalette() {
  const pal = $('#palette');
  for (const p of PIECES + 'x') {
    const b = document.createElement('button');
    b.textContent = p === 'x' ? '✕' : NAMES[p];
    b.className = p === 'x' ? '' : p === p.toUpperCase() ? 'red' : 'black';
    b.title = p === 'x' ? 'remove' : p;
    b.addEventListener('click', () => {
      E.piece = p;
      pal.querySelectorAll('button').forEach((x) => x.classList.toggle('active', x === b));
    });
    pal.appendChild(b);
  }
  const side = document.createElement('button');
  side.textContent = 'side to move ⇄';
  side.addEventListener('click', () => {
    const g = fenGrid(E.fen);
    g.side = g.side === 'w' ? 'b' : 'w';
    explore(gridFen(g));
  });
  pal.appendChild(side);
}
exBoard.onPoint = null;
$('#e-edit').addEventListener('click', () => {
  E.edit = !E.edit;
  $('#palette').hidden = !E.edit;
  $('#e-edit').classList.toggle('active', E.edit);
  exBoard.enabled = !E.edit;
  exBoard.onPoint = E.edit
    ? async (sq) => {
        if (!E.piece) return;
        const g = fenGrid(E.fen);
        const file = sq.charCodeAt(0) - 97;
        const rank = 9 - +sq[1];
        g.grid[rank][file] = E.piece === 'x' ? '' : E.piece;
        const fen = gridFen(g);
        try {
          await api(`/api/moves?fen=${enc(fen)}`);
          await explore(fen);
        } catch (e) {
          $('#e-status').innerHTML = `<span class="error">not placed: ${esc(e.message)}</span>`;
        }
      }
    : null;
});

// ---------------------------------------------------------------- theory

const T = { loaded: false, report: null };

async function loadTheory() {
  T.loaded = true;
  const sayings = await api('/api/sayings');
  const sel = $('#t-saying');
  for (const s of sayings) {
    const o = document.createElement('option');
    o.value = s.text;
    o.textContent = `${s.text} (${s.material})`;
    sel.appendChild(o);
  }
  sel.addEventListener('change', () => {
    $('#t-claim').value = sel.value;
    measure();
  });
  $('#t-claim').value = sel.value;
  await measure();
}

function countsTable(title, rows) {
  const pct = (c, n) => (c.legal ? ((100 * n) / c.legal).toFixed(2) : '0.00');
  return `<table class="numbers"><thead><tr><th>${esc(title)}</th><th>positions</th><th>win</th><th>draw</th><th>loss</th></tr></thead><tbody>${rows
    .map(([name, c]) => `<tr><td>${esc(name)}</td><td>${c.legal.toLocaleString('en')}</td><td>${pct(c, c.win)}%</td><td>${pct(c, c.draw)}%</td><td>${pct(c, c.loss)}%</td></tr>`)
    .join('')}</tbody></table>`;
}

async function measure() {
  const claim = $('#t-claim').value.trim();
  if (!claim) return;
  $('#t-verdict').innerHTML = '<span class="muted">counting…</span>';
  $('#t-tables').innerHTML = '';
  $('#t-examples').innerHTML = '';
  $('#t-heatmap').innerHTML = '';
  const asked = (T.asked = claim);
  try {
    const r = await api(`/api/theory?claim=${enc(claim)}&limit=5`);
    if (T.asked !== asked) return;
    T.report = r;
    $('#t-verdict').innerHTML = `<p><b>${esc(r.verdict.zh)}</b></p><p>${esc(r.verdict.en)}</p><p class="muted">${esc(r.material_chinese)} (${esc(r.material)}), rules ${esc(r.rules)}; defence: ${esc(r.defence)}</p>`;
    $('#t-tables').innerHTML = ['red', 'black']
      .map((side) => {
        const all = r.sides.find((s) => s.side_to_move === side);
        const rows = [['all', all]].concat(r.conditions.filter((c) => c.side_to_move === side).map((c) => [c.name, c]));
        return countsTable(`${side} to move`, rows);
      })
      .join('');
    const link = (fen) => `<a class="fen" data-fen="${esc(fen)}">${esc(fen)}</a>`;
    let ex = '';
    if (r.longest) ex += `<p>longest win (${r.longest.plies} plies): ${link(r.longest.fen)}</p>`;
    if (r.counterexamples.length)
      ex += `<p>counter-examples (${r.counterexample_count.toLocaleString('en')} in scope):</p><ul>${r.counterexamples
        .map((c) => `<li>${link(c.fen)} — ${esc(c.value)}</li>`)
        .join('')}</ul>`;
    $('#t-examples').innerHTML = ex;
    document.querySelectorAll('#t-examples a.fen').forEach((a) =>
      a.addEventListener('click', () => {
        E.history.push(E.fen);
        showTab('explorer');
        explore(a.dataset.fen);
      }),
    );
    // the stronger side's pieces for the heatmap
    const strong = r.material.slice(0, r.material.indexOf('K', 1));
    const piece = $('#t-piece');
    piece.innerHTML = '';
    for (const k of [...new Set(strong)]) {
      const o = document.createElement('option');
      o.value = k;
      o.textContent = `${NAMES[k]} ${k}`;
      piece.appendChild(o);
    }
    piece.value = [...strong].find((k) => k !== 'K') || 'K';
  } catch (e) {
    if (T.asked === asked) $('#t-verdict').innerHTML = `<span class="error">${esc(e.message)}</span>`;
  }
}

async function heatmap() {
  if (!T.report) return;
  const side = $('#t-side').value;
  $('#t-heatmap').innerHTML = '<span class="muted">drawing…</span>';
  try {
    $('#t-heatmap').innerHTML = await api(
      `/api/theory/heatmap.svg?claim=${enc($('#t-claim').value.trim())}&piece=${enc($('#t-piece').value)}${side ? `&side=${side}` : ''}`,
    );
  } catch (e) {
    $('#t-heatmap').innerHTML = `<span class="error">${esc(e.message)}</span>`;
  }
}
$('#t-measure').addEventListener('click', measure);
$('#t-claim').addEventListener('keydown', (e) => e.key === 'Enter' && measure());
$('#t-heat').addEventListener('click', heatmap);

// ---------------------------------------------------------------- start

buildPalette();
loadPuzzles()
  .then(() => {
    const first = filtered().find((p) => p.progress !== 'solved') || P.list[0];
    if (first) openPuzzle(first);
  })
  .catch((e) => feedback(`<span class="error">${esc(e.message)}</span>`));
const TABS = ['puzzles', 'explorer', 'theory'];
const tabOfHash = () => (TABS.includes(location.hash.slice(1)) ? location.hash.slice(1) : 'puzzles');
window.addEventListener('hashchange', () => showTab(tabOfHash()));
showTab(tabOfHash());
