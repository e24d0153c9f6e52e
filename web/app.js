// canju's page: puzzles, the table explorer and the theory reports, on the JSON API of
// `canju serve`. The board is the server's own SVG diagram (the look of `canju diagram`),
// whose points carry data-square for clicks and taps. Every label comes from WORDS in the
// language chosen (中文 by default, English by the toggle); what the server words (the
// judgement of a move, a hint, an ending) it sends in both, and the page shows one.
'use strict';

const $ = (s) => document.querySelector(s);
const $$ = (s) => [...document.querySelectorAll(s)];
const START = 'rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1';

// ---------------------------------------------------------------- words

const moves = (n) => (n === 1 ? '1 move' : `${n} moves`);
const WORDS = {
  zh: {
    'tab.puzzles': '题库',
    'tab.explorer': '探索',
    'tab.theory': '理论',
    'f.collection': '题集',
    'f.tag': '标签',
    'f.progress': '进度',
    'f.sort': '排序',
    'f.all': '全部',
    'f.sort.file': '题号',
    'f.sort.rating': '等级分（易到难）',
    'mark.untried': '未做',
    'mark.clean': '独立解出',
    'mark.helped': '借助提示',
    'mark.failed': '未解出',
    'mark.due': '待复习',
    'p.choose': '选一道题',
    'p.hint': '提示',
    'p.undo': '悔棋',
    'p.solution': '答案',
    'p.next': '下一题',
    'p.flip': '翻转',
    'e.load': '载入',
    'e.start': '开局',
    'e.back': '后退',
    'e.copy': '复制 FEN',
    'e.edit': '摆棋',
    'e.rules': '棋规',
    'e.within': '限',
    'e.moves': '步',
    'e.time': '时间',
    'e.seconds': '秒',
    'e.solve': '求解',
    'e.col.move': '着法',
    'e.col.attack': '打',
    'attack.check': '将',
    'attack.mate-threat': '杀',
    'attack.chase': '捉',
    'e.col.verdict': '结果',
    'e.col.moves': '步数',
    'rules.asian': '亚洲棋规（长打作负：长将、长杀、长捉）',
    'rules.check-only': '只禁长将（长将作负）',
    'rules.none': '不限着（循环不变作和）',
    't.placeholder': '一句谚语或一种子力，如 KNPKAABB',
    't.measure': '统计',
    't.piece': '热图棋子',
    't.side': '走方',
    't.side.saying': '按谚语',
    't.heat': '画热图',
    'side.red': '红方',
    'side.black': '黑方',
    count: (shown, all, clean, helped, failed) => `${shown} / ${all} 题 · 独立解出 ${clean} · 借助提示 ${helped} · 未解出 ${failed}`,
    me: (r, rd, streak, due) => `等级分 ${r} ±${rd} · 连胜 ${streak}${due ? ` · 待复习 ${due}` : ''}`,
    meta: (collection, rating, mark) => `${collection} · 等级分 ${rating}${mark ? ` · ${mark}` : ''}`,
    'turn.you': (side) => `轮到你走（${side}）`,
    'turn.thinking': (side) => `${side}思考中…`,
    'turn.solved': '解出！',
    'turn.finished': '走完：悔棋前有错着，记为未解出',
    'finished.after.mistake': (s) => said(s).replace('解出！', '走完（悔棋前有错着，此题记为未解出）：'),
    'turn.wrong': '错着：悔棋再试，或看答案',
    'turn.over': '对局结束',
    'turn.solution': '答案已显示',
    'turn.playing': '演示答案…',
    checking: '按完美着法检验中…',
    thinking: '思考中…',
    'hint.takeBack': '提示：先悔掉错着',
    solution: (line) => `答案：${line}`,
    'solution.none': '答案：此处已无着法能达成目标（悔棋）',
    recorded: (result, r, change, pr, due) =>
      `记录：${WORDS.zh['mark.' + result]}；你的等级分 ${r}（${change}），本题 ${pr}${due ? `；${due}复习` : ''}`,
    practice: (result, r) => `练习：${WORDS.zh['mark.' + result]}（此题已有记录，尚未到复习时间：等级分与复习安排不变）；你的等级分 ${r}`,
    'not.saved': (e) => `（进度未保存：${e}）`,
    'wait.min': (n) => `${n}分钟后`,
    'wait.hour': (n) => `${n}小时后`,
    'wait.day': (n) => `${n}天后`,
    start: '开始',
    'none.left': '题目都做过了，也没有待复习的',
    status: (side, pieces) => `${side}走，${pieces}子`,
    'status.check': '，被将军',
    'status.mate': (side) => `，${side}被将死，负`,
    'status.stalemate': (side) => `，${side}被困毙，负`,
    composed: (why) => `；排局局面（${why}），实战中不会出现`,
    copied: 'FEN 已复制',
    'probe.head': (mc, m, rules) => `${mc}（${m}），${rules}：`,
    'probe.win': (n) => `${n}步胜`,
    'probe.loss': (n) => `${n}步被杀`,
    'probe.lost': '已无着可走，负',
    'probe.draw': '和棋',
    'probe.rulewin': (k, r) =>
      r === 'asian' ? `凭长打作负取胜：对方只能长将、长杀或长捉（第${k}层）` : `凭长将作负取胜（第${k}层）`,
    'probe.ruleloss': (k, r) =>
      r === 'asian' ? `因长打作负而负：只有长将、长杀或长捉才能免于被杀（第${k}层）` : `因长将作负而负（第${k}层）`,
    'probe.for': (side) => `${side}走，`,
    'probe.none': (why) => `没有残局库值（${why}）；下面的“求解”可以证明杀法。`,
    'verdict.win': '胜',
    'verdict.draw': '和',
    'verdict.loss': '负',
    'by.rule': (k) => `棋规 第${k}层`,
    proving: '证明中…',
    'solve.win': (n, ending) =>
      `${n}步${ending === 'stalemate' ? '困毙' : ending === 'perpetual-check' ? '胜（长将作负）' : ending === 'perpetual-attack' ? '胜（长打作负）' : '杀'}`,
    'solve.within': (n, k) => `已证明：${n}步内必胜；最短步数未定（${k}半步内没有）`,
    'solve.moves': '取胜的第一步',
    'solve.line': '主变',
    'solve.none': (n) => `已证明：${n}步内没有杀法`,
    'solve.unknown': (n) => `未定：搜索到第${n}半步时停止；这么短的杀法没有`,
    counting: '统计中…',
    'theory.meta': (mc, m, rules, defence) => `${mc}（${m}），${rules}；守方：${defence}`,
    'theory.side': (side) => `${side}先走`,
    'theory.all': '全部',
    'theory.col': ['局面数', '胜', '和', '负'],
    'theory.longest': (n) => `最长的胜局：${n}步`,
    'theory.examples': (n) => `反例（范围内共 ${n} 个，点开在探索中查看）：`,
    drawing: '绘制中…',
    footer: (rules) => `canju：由自建残局库给出完美着法；题库和理论采用${rules}`,
  },
  en: {
    'tab.puzzles': 'Puzzles',
    'tab.explorer': 'Explorer',
    'tab.theory': 'Theory',
    'f.collection': 'Collection',
    'f.tag': 'Tag',
    'f.progress': 'Progress',
    'f.sort': 'Order',
    'f.all': 'all',
    'f.sort.file': 'number',
    'f.sort.rating': 'rating (easiest first)',
    'mark.untried': 'untried',
    'mark.clean': 'solved clean',
    'mark.helped': 'solved with help',
    'mark.failed': 'failed',
    'mark.due': 'due for review',
    'p.choose': 'Choose a puzzle',
    'p.hint': 'Hint',
    'p.undo': 'Undo',
    'p.solution': 'Solution',
    'p.next': 'Next',
    'p.flip': 'Flip',
    'e.load': 'Load',
    'e.start': 'Start',
    'e.back': 'Back',
    'e.copy': 'Copy FEN',
    'e.edit': 'Set up',
    'e.rules': 'Rules',
    'e.within': 'within',
    'e.moves': 'moves',
    'e.time': 'time',
    'e.seconds': 's',
    'e.solve': 'Solve',
    'e.col.move': 'move',
    'e.col.attack': 'attacks',
    'attack.check': 'check',
    'attack.mate-threat': 'mate threat',
    'attack.chase': 'chase',
    'e.col.verdict': 'verdict',
    'e.col.moves': 'moves',
    'rules.asian': 'asian rules (perpetual attack loses: check, mate threat or chase)',
    'rules.check-only': 'perpetual check alone loses',
    'rules.none': 'no rule (endless play is a draw)',
    't.placeholder': 'a saying or a material, e.g. KNPKAABB',
    't.measure': 'Measure',
    't.piece': 'Heatmap piece',
    't.side': 'side to move',
    't.side.saying': "the saying's",
    't.heat': 'Draw',
    'side.red': 'red',
    'side.black': 'black',
    count: (shown, all, clean, helped, failed) =>
      `${shown} of ${all} puzzles · ${clean} solved clean · ${helped} with help · ${failed} failed`,
    me: (r, rd, streak, due) => `rating ${r} ±${rd} · streak ${streak}${due ? ` · ${due} due` : ''}`,
    meta: (collection, rating, mark) => `${collection} · rated ${rating}${mark ? ` · ${mark}` : ''}`,
    'turn.you': (side) => `Your move (${side})`,
    'turn.thinking': (side) => `${side[0].toUpperCase()}${side.slice(1)} is thinking…`,
    'turn.solved': 'Solved!',
    'turn.finished': 'Finished after a mistake: counted as failed',
    'finished.after.mistake': (s) => said(s).replace('solved: ', 'finished after a mistake taken back (the puzzle counts as failed): '),
    'turn.wrong': 'A mistake: undo and try again, or see the solution',
    'turn.over': 'The game is over',
    'turn.solution': 'The solution is shown',
    'turn.playing': 'Playing the solution…',
    checking: 'checking against perfect play…',
    thinking: 'thinking…',
    'hint.takeBack': 'hint: take the mistake back first (undo)',
    solution: (line) => `solution: ${line}`,
    'solution.none': 'solution: no move keeps the goal from here (undo)',
    recorded: (result, r, change, pr, due) =>
      `recorded: ${WORDS.en['mark.' + result]}; your rating ${r} (${change}), this puzzle ${pr}${due ? `; back for review ${due}` : ''}`,
    practice: (result, r) =>
      `practice: ${WORDS.en['mark.' + result]} (a replay before its review is due: rating and review unchanged); your rating ${r}`,
    'not.saved': (e) => `(progress not saved: ${e})`,
    'wait.min': (n) => `in ${n} minute${n === 1 ? '' : 's'}`,
    'wait.hour': (n) => `in ${n} hour${n === 1 ? '' : 's'}`,
    'wait.day': (n) => `in ${n} day${n === 1 ? '' : 's'}`,
    start: 'start',
    'none.left': 'every puzzle has been tried and none is due for review',
    status: (side, pieces) => `${side} to move, ${pieces} pieces`,
    'status.check': ', in check',
    'status.mate': (side) => `; ${side} is checkmated and loses`,
    'status.stalemate': (side) => `; ${side} has no move (stalemate) and loses`,
    composed: (why) => `; a composed position (${why}): no game reaches it`,
    copied: 'FEN copied',
    'probe.head': (mc, m, rules) => `${mc} (${m}), ${rules}: `,
    'probe.win': (n) => `win in ${moves(n)}`,
    'probe.loss': (n) => `mated in ${moves(n)}`,
    'probe.lost': 'no move left: lost',
    'probe.draw': 'draw',
    'probe.rulewin': (k, r) =>
      r === 'asian' ? `win by the 长打 rule (the defender can only check, threaten mate or chase; level ${k})` : `win by the perpetual-check rule (level ${k})`,
    'probe.ruleloss': (k, r) =>
      r === 'asian' ? `loss by the 长打 rule (only checking, threatening mate or chasing holds; level ${k})` : `loss by the perpetual-check rule (level ${k})`,
    'probe.for': (side) => `${side} to move, `,
    'probe.none': (why) => `No table value (${why}). “Solve” below proves forced mates.`,
    'verdict.win': 'win',
    'verdict.draw': 'draw',
    'verdict.loss': 'loss',
    'by.rule': (k) => `by rule, level ${k}`,
    proving: 'proving…',
    'solve.win': (n, ending) =>
      ending === 'stalemate'
        ? `stalemate in ${moves(n)}`
        : ending === 'perpetual-check'
          ? `win in ${moves(n)} (perpetual check loses, 长将作负)`
          : ending === 'perpetual-attack'
            ? `win in ${moves(n)} (perpetual attack loses, 长打作负)`
            : `mate in ${moves(n)}`,
    'solve.within': (n, k) => `a forced win within ${moves(n)}, proven; the shortest not established (none within ${k} plies)`,
    'solve.moves': 'winning first moves',
    'solve.line': 'line',
    'solve.none': (n) => `no forced win within ${moves(n)} (proven)`,
    'solve.unknown': (n) => `unknown: stopped at ${n} plies; no win that short`,
    counting: 'counting…',
    'theory.meta': (mc, m, rules, defence) => `${mc} (${m}), ${rules}; defence: ${defence}`,
    'theory.side': (side) => `${side} to move`,
    'theory.all': 'all',
    'theory.col': ['positions', 'win', 'draw', 'loss'],
    'theory.longest': (n) => `the longest win: ${moves(n)}`,
    'theory.examples': (n) => `counter-examples (${n} in scope; open one in the explorer):`,
    drawing: 'drawing…',
    footer: (rules) => `canju: perfect play from its own tables; puzzles and theory under ${rules}`,
  },
};
const COLLECTIONS = {
  endgames: ['实用残局', 'Practical endgames'],
  mates: ['实战杀局', 'Mates from games'],
  patterns: ['杀法', 'Mating patterns'],
  compositions: ['古谱排局', 'Compositions'],
  checks: ['连将杀', 'Mates by checks'],
  shiqingyaqu: ['适情雅趣', 'Shiqing Yaqu'],
  lanke: ['烂柯神机', 'Lanke Shenji'],
};

let LANG = 'zh';
try {
  LANG = localStorage.getItem('canju-lang') === 'en' ? 'en' : 'zh';
} catch {
  // (storage refused: Chinese)
}
const t = (key, ...args) => {
  const w = WORDS[LANG][key] ?? WORDS.zh[key] ?? key;
  return typeof w === 'function' ? w(...args) : w;
};
const said = (s) => (s ? s[LANG] ?? s.zh : '');
const sideName = (side) => t(`side.${side}`);
// a tag and a puzzle's title in the language (the server gives both in English)
const TAG_EN = {};
const tagName = (tag) => (LANG === 'zh' ? tag : TAG_EN[tag] || tag);
const titleOf = (p) => (LANG === 'zh' ? p.title : p.title_en || p.title);
const collectionName = (c) => (COLLECTIONS[c] ? COLLECTIONS[c][LANG === 'zh' ? 0 : 1] : c);
const rulesName = (r) => {
  const name = String(r || '');
  return t(name.startsWith('none') ? 'rules.none' : name.startsWith('check') ? 'rules.check-only' : 'rules.asian');
};
// "士象全 (full advisors and elephants)": the server's two-language phrase, one half
const half = (s) => {
  const m = /^(.*?) \((.*)\)$/.exec(s || '');
  return m ? (LANG === 'zh' ? m[1] : m[2]) : s || '';
};
const wait = (secs) => {
  if (secs < 3600) return t('wait.min', Math.max(1, Math.ceil(secs / 60)));
  if (secs < 86400) return t('wait.hour', Math.ceil(secs / 3600));
  return t('wait.day', Math.ceil(secs / 86400));
};
const movesOf = (plies) => Math.ceil(plies / 2);
// a move's name: Chinese notation in Chinese, WXF in English (the notation each writes)
const moveName = (m) => (m ? (LANG === 'zh' ? m.chinese || m.move : m.wxf || m.chinese || m.move) : '');

// ---------------------------------------------------------------- the API

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
const boardUrl = (fen, { arrows = [], marks = [], last = null, flip = false } = {}) =>
  `/api/board.svg?fen=${enc(fen)}&arrow=${arrows.join(',')}&mark=${marks.join(',')}${last ? `&last=${last}` : ''}${flip ? '&flip=true' : ''}${LANG === 'en' ? '&lang=en' : ''}`;

// ---------------------------------------------------------------- the board

class Board {
  constructor(el) {
    this.el = el;
    this.enabled = false;
    this.onMove = null;
    this.onPoint = null;
    this.legal = [];
    this.selected = null;
    // a piece pressed and dragged, and whether the click that ends a drag is to be ignored
    this.drag = null;
    this.dropped = false;
    el.addEventListener('click', (e) => this.click(e));
    el.addEventListener('pointerdown', (e) => this.press(e));
    el.addEventListener('pointermove', (e) => this.dragTo(e));
    el.addEventListener('pointerup', (e) => this.release(e));
    el.addEventListener('pointercancel', () => this.cancelDrag());
  }

  // Draws a position (the last move tinted, arrows, marked points, turned for black) and
  // learns its legal moves.
  async show(fen, drawn = {}) {
    // only the latest request draws: an older answer arriving late is dropped
    const generation = (this.generation = (this.generation || 0) + 1);
    const moves = `/api/moves?fen=${enc(fen)}${drawn.attacks ? '&attacks=true' : ''}`;
    const [svg, info] = await Promise.all([api(boardUrl(fen, drawn)), api(moves)]);
    if (generation !== this.generation) return info;
    this.el.innerHTML = svg;
    this.fen = info.fen;
    this.info = info;
    this.legal = info.moves;
    this.selected = null;
    this.drag = null;
    this.markCheck();
    return info;
  }

  // A red ring round the general of the side to move when it is in check (将军).
  markCheck() {
    const info = this.info;
    this.el.dataset.check = '';
    if (!info || !info.in_check) return;
    const general = info.side_to_move === 'red' ? 'K' : 'k';
    const g = this.el.querySelector(`g.piece[data-piece="${general}"]`);
    if (!g) return;
    const sq = g.dataset.square;
    this.el.dataset.check = sq;
    this.ring(sq, 'check', 27, '#c62828');
  }

  // Slides the piece of move `iccs` from its point to the target in the board as drawn,
  // taking away what stands there, in `ms` milliseconds; the caller draws the position after
  // it. The board keeps the moves it animated in `data-animated` (for tests).
  async animate(iccs, ms = 300) {
    const from = iccs.slice(0, 2);
    const to = iccs.slice(2, 4);
    const g = this.el.querySelector(`g.piece[data-square="${from}"]`);
    const a = this.centre(from);
    const b = this.centre(to);
    if (!g || !a || !b) return;
    const taken = this.el.querySelector(`g.piece[data-square="${to}"]`);
    g.parentNode.appendChild(g);
    g.classList.add('moving');
    g.style.transition = `transform ${ms}ms ease-in-out`;
    if (taken) {
      taken.style.transition = `opacity ${ms}ms`;
    }
    // (the last few only: a long session does not grow it for ever)
    this.el.dataset.animated = ((this.el.dataset.animated || '') + ' ' + iccs).trim().split(' ').slice(-12).join(' ');
    // (a frame first, so that the transition starts from where the piece stands)
    await new Promise((r) => requestAnimationFrame(() => r()));
    g.style.transform = `translate(${b[0] - a[0]}px, ${b[1] - a[1]}px)`;
    if (taken) taken.style.opacity = '0';
    await sleep(ms);
  }

  // Dragging: a piece of the side to move pressed and moved follows the pointer; let go
  // over a legal target, the move is made (a press and let go in place is a click).
  press(e) {
    if (!this.enabled || this.onPoint || e.button > 0) return;
    const g = e.target.closest('g.piece');
    const point = e.target.closest('[data-square]');
    const sq = (g || point) && (g || point).dataset.square;
    if (!sq || !this.legal.some((m) => m.iccs.startsWith(sq))) return;
    const piece = this.el.querySelector(`g.piece[data-square="${sq}"]`);
    if (!piece) return;
    this.drag = { from: sq, piece, x: e.clientX, y: e.clientY, moved: false, id: e.pointerId };
  }

  dragTo(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    const svg = this.el.querySelector('svg');
    if (!svg) return;
    if (!d.moved && Math.hypot(e.clientX - d.x, e.clientY - d.y) < 6) return;
    if (!d.moved) {
      d.moved = true;
      d.piece.parentNode.appendChild(d.piece);
      d.piece.classList.add('dragged');
      d.piece.style.pointerEvents = 'none';
      try {
        this.el.setPointerCapture(e.pointerId);
      } catch {
        // (a synthetic pointer cannot always be captured)
      }
      this.clear();
      this.selected = d.from;
      this.ring(d.from, 'selected', 25, '#1565c0');
      for (const m of this.legal.filter((m) => m.iccs.startsWith(d.from))) this.ring(m.iccs.slice(2), 'target', 9, '#2e7d32', true);
    }
    // the screen's pixels to the drawing's units
    const scale = svg.viewBox && svg.viewBox.baseVal && svg.viewBox.baseVal.width ? svg.viewBox.baseVal.width / svg.getBoundingClientRect().width : 1;
    d.piece.style.transform = `translate(${(e.clientX - d.x) * scale}px, ${(e.clientY - d.y) * scale}px)`;
    e.preventDefault();
  }

  release(e) {
    const d = this.drag;
    if (!d || e.pointerId !== d.id) return;
    this.drag = null;
    if (!d.moved) return;
    d.piece.style.transform = '';
    d.piece.style.pointerEvents = '';
    d.piece.classList.remove('dragged');
    this.dropped = true;
    setTimeout(() => (this.dropped = false), 0);
    const under = document.elementFromPoint(e.clientX, e.clientY);
    const point = under && under.closest('#' + this.el.id + ' [data-square]');
    const mv = point && this.legal.find((m) => m.iccs === d.from + point.dataset.square);
    this.clear();
    this.selected = null;
    if (mv && this.onMove) this.onMove(mv);
  }

  cancelDrag() {
    const d = this.drag;
    this.drag = null;
    if (d && d.moved) {
      d.piece.style.transform = '';
      d.piece.style.pointerEvents = '';
      d.piece.classList.remove('dragged');
      this.clear();
      this.selected = null;
    }
  }

  click(e) {
    // (the click a drag ends with has been handled)
    if (this.dropped) return;
    const target = e.target.closest('[data-square]');
    if (!target) return;
    const sq = target.dataset.square;
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
        if (this.onMove) this.onMove(mv);
        return;
      }
    }
    this.clear();
    const targets = this.legal.filter((m) => m.iccs.startsWith(sq));
    if (targets.length && sq !== this.selected) {
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
      el.setAttribute('fill-opacity', '0.7');
    } else {
      el.setAttribute('fill', 'none');
      el.setAttribute('stroke', colour);
      el.setAttribute('stroke-width', '4');
    }
    svg.appendChild(el);
  }

  clear() {
    // (the check mark stays: it belongs to the position)
    this.el.querySelectorAll('.highlight:not(.check)').forEach((e) => e.remove());
  }
}

// ---------------------------------------------------------------- the address

// #puzzles/ID, #explorer?fen=…&rules=…&last=…, #theory?claim=…
function parseHash() {
  const h = location.hash.slice(1);
  const [head, query = ''] = h.split('?');
  const [tab, id] = head.split('/');
  const q = new URLSearchParams(query);
  return { tab: TABS.includes(tab) ? tab : 'puzzles', id: id ? decodeURIComponent(id) : null, q };
}
const TABS = ['puzzles', 'explorer', 'theory'];
// how many entries of this page's history lie behind the current one: the explorer's Back
let NAV = (history.state && history.state.n) || 0;
function push(address) {
  if (location.hash === address) return;
  NAV += 1;
  history.pushState({ n: NAV }, '', address);
}
function replace(address) {
  history.replaceState({ n: NAV }, '', address);
}

// Shows a tab; `fill`: a tab never shown yet starts on its default (the start position,
// the first saying).
function showTab(name, fill = true) {
  $$('.tab').forEach((s) => (s.hidden = s.id !== name));
  $$('.tab-button').forEach((b) => b.classList.toggle('active', b.dataset.tab === name));
  if (fill && name === 'explorer' && !E.loaded) goExplore(E.fen, { replacing: true });
  if (fill && name === 'theory' && !T.loaded) loadTheory();
}
$$('.tab-button').forEach((b) =>
  b.addEventListener('click', () => {
    const to = b.dataset.tab;
    const address = to === 'explorer' ? explorerHash() : to === 'puzzles' && P.current ? `#puzzles/${enc(P.current.id)}` : `#${to}`;
    push(address);
    showTab(to);
  }),
);

// ---------------------------------------------------------------- the player

const ME = { rating: null, deviation: null, streak: 0, due: 0 };
function renderMe() {
  $('#me').textContent = ME.rating == null ? '' : t('me', ME.rating, ME.deviation, ME.streak, ME.due);
}
async function loadMe() {
  try {
    const m = await api('/api/progress');
    Object.assign(ME, { rating: m.rating, deviation: m.rating_deviation, streak: m.streak, due: m.due });
    renderMe();
  } catch {
    // (no progress to show)
  }
}

// ---------------------------------------------------------------- puzzles

const P = {
  list: [],
  current: null,
  line: [], // the moves played, ICCS, both sides
  names: [], // the same as {chinese, wxf}
  fb: [], // the feedback's lines: {cls, said} or {cls, key, args}
  done: false,
  solved: false,
  wrongAt: null, // the ply of a mistake not yet taken back
  failed: false, // a mistake was made in this attempt
  helped: false, // a hint or the solution was shown in this attempt
  recorded: false,
  hintStage: 0,
  busy: false,
  flip: null, // null: the player's side at the bottom
  arrows: [],
  marks: [],
};
const puzzleBoard = new Board($('#puzzle-board'));

function setFeedback(...lines) {
  P.fb = lines;
  renderFeedback();
}
function addFeedback(line) {
  P.fb.push(line);
  renderFeedback();
}
function renderFeedback() {
  $('#feedback').innerHTML = P.fb
    .map((l) => {
      const text = l.said
        ? said(l.said)
        : l.raw != null
          ? l.raw
          : l.line
            ? t(l.key, l.line.map((m, i) => (i % 2 ? moveName(m) : `${l.first + i / 2}. ${moveName(m)}`)).join(' '))
            : t(l.key, ...(l.args || []));
      return `<p class="${l.cls || ''}">${esc(text)}</p>`;
    })
    .join('');
}

async function loadPuzzles() {
  P.list = await api('/api/puzzles');
  const fill = (sel, values, label = (v) => v) => {
    for (const v of values) {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = label(v);
      o.dataset.value = v;
      sel.appendChild(o);
    }
  };
  fill($('#f-collection'), [...new Set(P.list.map((p) => p.collection))], collectionName);
  for (const p of P.list) p.tags.forEach((tag, i) => (TAG_EN[tag] = p.tags_en[i]));
  fill($('#f-tag'), [...new Set(P.list.flatMap((p) => p.tags))].sort(), tagName);
  for (const id of ['#f-collection', '#f-tag', '#f-progress', '#f-sort']) $(id).addEventListener('change', renderList);
  renderList();
}

function filtered() {
  const c = $('#f-collection').value;
  const tag = $('#f-tag').value;
  const pr = $('#f-progress').value;
  const now = Date.now() / 1000;
  const list = P.list.filter(
    (p) =>
      (!c || p.collection === c) &&
      (!tag || p.tags.includes(tag)) &&
      (!pr ||
        (pr === 'untried' ? !p.progress : pr === 'due' ? p.due != null && p.due <= now : p.progress === pr)),
  );
  if ($('#f-sort').value === 'rating') list.sort((a, b) => a.rating - b.rating);
  return list;
}

const MARKS = { clean: '✓', helped: '✓?', failed: '✗' };
function renderList() {
  const ul = $('#puzzle-list');
  ul.innerHTML = '';
  const list = filtered();
  const n = (m) => P.list.filter((p) => p.progress === m).length;
  $('#puzzle-count').textContent = t('count', list.length, P.list.length, n('clean'), n('helped'), n('failed'));
  const now = Date.now() / 1000;
  for (const p of list) {
    const li = document.createElement('li');
    li.dataset.id = p.id;
    if (P.current && P.current.id === p.id) li.classList.add('current');
    const due = p.due != null && p.due <= now;
    const mark = p.progress ? `<span class="mark mark-${p.progress}" title="${esc(t('mark.' + p.progress))}">${MARKS[p.progress]}</span>` : '';
    li.innerHTML = `<span class="name">${esc(titleOf(p))}</span><span class="rating">${p.rating}</span><span class="id">${esc(p.id)}${due ? ` · ${esc(t('mark.due'))}` : ''}</span><span>${mark}</span>`;
    li.title = `${p.id} · ${titleOf(p)}`;
    li.addEventListener('click', () => openPuzzle(p.id));
    ul.appendChild(li);
  }
}

async function openPuzzle(id, { pushed = true } = {}) {
  const summary = P.list.find((p) => p.id === id);
  if (!summary) return;
  const details = await api(`/api/puzzles/${enc(id)}`);
  Object.assign(P, {
    current: { ...details, rating: summary.rating, progress: summary.progress },
    line: [],
    names: [],
    fb: [],
    done: false,
    solved: false,
    wrongAt: null,
    failed: false,
    helped: false,
    recorded: false,
    hintStage: 0,
    busy: false,
    playing: false,
    shown: false,
    flip: null,
    arrows: [],
    marks: [],
  });
  const address = `#puzzles/${enc(id)}`;
  if (pushed) push(address);
  $$('#puzzle-list li').forEach((li) => li.classList.toggle('current', li.dataset.id === id));
  // (the list scrolls to it; the page itself does not move)
  const li = $(`#puzzle-list li[data-id="${CSS.escape(id)}"]`);
  const ul = $('#puzzle-list');
  if (li && (li.offsetTop < ul.scrollTop || li.offsetTop + li.offsetHeight > ul.scrollTop + ul.clientHeight)) {
    ul.scrollTop = li.offsetTop - ul.clientHeight / 2;
  }
  renderPuzzle();
  await showPuzzle();
}

// the player's side is at the bottom unless the player turned the board
const flipped = () => (P.flip != null ? P.flip : P.current && P.current.side_to_move === 'black');

function renderPuzzle() {
  const p = P.current;
  if (!p) return;
  $('#puzzle-title').textContent = titleOf(p);
  const summary = P.list.find((x) => x.id === p.id) || p;
  // a puzzle's rating is hidden until it has been done once (recorded), as lichess does
  const rating = summary.progress || P.recorded ? summary.rating : '?';
  $('#puzzle-meta').textContent = `${p.id} · ${t('meta', collectionName(p.collection), rating, summary.progress ? t('mark.' + summary.progress) : '')}`;
  $('#puzzle-goal').textContent = LANG === 'zh' ? p.goal_zh : p.goal_text;
  renderTurn();
  renderFeedback();
  renderPuzzleMoves();
  const canHint = !P.done && !P.busy && P.line.length % 2 === 0;
  $('#p-hint').disabled = !canHint && P.wrongAt == null;
  $('#p-undo').disabled = P.busy || !P.line.length;
  $('#p-solution').disabled = P.busy;
}

function renderTurn() {
  const el = $('#turn');
  const p = P.current;
  let cls = '';
  let text = '';
  if (P.solved && P.failed) {
    text = t('turn.finished');
  } else if (P.solved) {
    text = t('turn.solved');
    cls = 'done';
  } else if (P.wrongAt != null) {
    text = t('turn.wrong');
    cls = 'wrong';
  } else if (P.done) {
    text = t(P.shown ? 'turn.solution' : 'turn.over');
  } else if (P.playing) {
    text = t('turn.playing');
  } else if (P.busy) {
    const defender = p.side_to_move === 'red' ? 'black' : 'red';
    text = t('turn.thinking', sideName(defender));
    cls = defender;
  } else {
    text = t('turn.you', sideName(p.side_to_move));
    cls = p.side_to_move;
  }
  el.className = `turn ${cls}`;
  el.textContent = text;
}

function renderPuzzleMoves() {
  const ol = $('#puzzle-moves');
  ol.innerHTML = '';
  const item = (text, cls, at) => {
    const li = document.createElement('li');
    li.textContent = text;
    li.className = cls;
    if (at != null) {
      li.dataset.at = at;
      if (at === P.line.length) li.classList.add('at');
      li.addEventListener('click', () => stepTo(at));
    }
    ol.appendChild(li);
  };
  item(t('start'), 'start', 0);
  for (let i = 0; i < P.line.length; i += 2) {
    item(`${i / 2 + 1}.`, 'number', null);
    item(moveName(P.names[i]) || P.line[i], `player${P.wrongAt === i ? ' wrong' : ''}`, i + 1);
    if (i + 1 < P.line.length) item(moveName(P.names[i + 1]) || P.line[i + 1], 'defender', i + 2);
    else item('', 'defender', null);
  }
}

async function showPuzzle() {
  const p = P.current;
  const last = P.line.length ? P.line[P.line.length - 1] : null;
  const info = await api(`/api/moves?fen=${enc(p.fen)}&play=${P.line.join(',')}`);
  if (P.current !== p) return;
  await puzzleBoard.show(info.fen, { arrows: P.arrows, marks: P.marks, last, flip: flipped() });
  if (P.current !== p) return;
  puzzleBoard.enabled = !P.done && !P.busy && P.wrongAt == null && !info.game_over && info.side_to_move === p.side_to_move;
  renderPuzzle();
}

// Back to the position after `at` plies, the player to move (a move of the defender's
// clicked: after it; the player's: after the reply to it).
async function stepTo(at) {
  if (P.busy) return;
  let n = Math.min(at, P.line.length);
  if (n % 2 === 1 && n < P.line.length) n += 1;
  if (n === P.line.length && P.wrongAt == null) return;
  if (P.wrongAt != null && n > P.wrongAt) n = P.wrongAt;
  P.line = P.line.slice(0, n);
  P.names = P.names.slice(0, n);
  P.wrongAt = null;
  P.done = false;
  P.shown = false;
  P.solved = false;
  P.hintStage = 0;
  P.arrows = [];
  P.marks = [];
  setFeedback();
  await showPuzzle();
}

// a rating change as lichess shows it: +12, −8 (a minus sign), ±0
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '±0');

// Records the attempt once: at its end, or the moment a hint or the solution is shown
// (`help`), whether or not the player goes on; a replay before the puzzle is due again is
// practice, which the server records without moving any rating.
async function recordResult(solved, { help = false } = {}) {
  if (P.recorded) return;
  P.recorded = true;
  const p = P.current;
  try {
    const r = await post(`/api/puzzles/${enc(p.id)}/result`, { solved, helped: P.helped, help });
    const entry = P.list.find((x) => x.id === p.id);
    if (entry && !r.practice) Object.assign(entry, { progress: r.result, rating: r.puzzle_rating, due: r.due });
    ME.rating = r.rating;
    ME.deviation = r.rating_deviation;
    loadMe();
    const dueIn = r.due != null ? wait(r.due - Date.now() / 1000) : null;
    if (r.practice) addFeedback({ cls: 'muted', key: 'practice', args: [r.result, r.rating] });
    else addFeedback({ cls: 'muted', key: 'recorded', args: [r.result, r.rating, signed(r.rating_change), r.puzzle_rating, dueIn] });
    renderList();
    renderPuzzle();
  } catch (e) {
    addFeedback({ cls: 'error', key: 'not.saved', args: [e.message] });
  }
}

puzzleBoard.onMove = async (mv) => {
  const p = P.current;
  if (!p || P.busy) return;
  P.busy = true;
  puzzleBoard.enabled = false;
  const tried = P.line.concat([mv.iccs]);
  P.arrows = [];
  P.marks = [];
  P.hintStage = 0;
  try {
    const after = await api(`/api/moves?fen=${enc(p.fen)}&play=${tried.join(',')}`);
    await puzzleBoard.show(after.fen, { last: mv.iccs, flip: flipped() });
    P.line = tried;
    P.names = P.names.concat([{ chinese: mv.chinese, wxf: mv.wxf }]);
    setFeedback({ cls: 'muted', key: 'checking' });
    renderPuzzle();
    const res = await post(`/api/puzzles/${enc(p.id)}/check`, { moves: tried });
    if (P.current !== p) return;
    P.names = res.moves.map((m) => ({ chinese: m.move, wxf: m.wxf }));
    const mine = res.moves[tried.length - 1];
    if (mine.feedback === 'mistake') {
      P.wrongAt = tried.length - 1;
      P.failed = true;
      P.busy = false;
      setFeedback({ cls: 'mistake', said: mine.said });
      await showPuzzle();
      await recordResult(false);
      return;
    }
    setFeedback({ cls: mine.feedback, said: mine.said });
    const reply = res.moves[tried.length];
    if (reply && reply.by === 'defender') {
      // a short pause, then the reply slides into place
      await sleep(350);
      if (P.current !== p) return;
      await puzzleBoard.animate(reply.iccs);
      if (P.current !== p) return;
      P.line = res.moves.map((m) => m.iccs);
      addFeedback({ cls: 'reply', said: reply.said });
    }
    if (res.ending) {
      P.done = true;
      P.solved = res.solved;
      // a goal reached after a mistake taken back counts as failed: said so, as recorded
      if (res.solved && P.failed) addFeedback({ cls: 'mistake', key: 'finished.after.mistake', args: [res.ending_said] });
      else addFeedback({ cls: res.solved ? 'solved' : 'mistake', said: res.ending_said });
    }
    P.busy = false;
    await showPuzzle();
    if (res.ending) await recordResult(res.solved);
  } catch (e) {
    P.busy = false;
    P.line = tried.slice(0, -1);
    P.names = P.names.slice(0, P.line.length);
    setFeedback({ cls: 'error', raw: e.message });
    await showPuzzle();
  }
};

$('#p-hint').addEventListener('click', async () => {
  if (!P.current || P.busy) return;
  if (P.wrongAt != null) {
    setFeedback({ key: 'hint.takeBack' });
    return;
  }
  if (P.done) return;
  setFeedback({ cls: 'muted', key: 'thinking' });
  try {
    const h = await post(`/api/puzzles/${enc(P.current.id)}/hint`, { moves: P.line });
    if (!h.iccs) {
      setFeedback({ said: h.piece });
      return;
    }
    P.helped = true;
    if (P.hintStage === 0) {
      P.hintStage = 1;
      P.marks = [h.from];
      P.arrows = [];
      setFeedback({ said: h.piece });
    } else {
      P.arrows = [h.iccs];
      P.marks = [];
      setFeedback({ said: h.move });
    }
    await recordResult(false, { help: true });
    await showPuzzle();
  } catch (e) {
    setFeedback({ cls: 'error', raw: e.message });
  }
});

$('#p-undo').addEventListener('click', async () => {
  if (!P.current || !P.line.length || P.busy) return;
  // back to before the player's last move (and the reply to it)
  let n = P.line.length - 1;
  if (n % 2 === 1) n -= 1;
  await stepTo(n);
});

$('#p-solution').addEventListener('click', async () => {
  const p = P.current;
  if (!p || P.busy) return;
  // after a mistake, the solution from before it
  const from = P.wrongAt != null ? P.line.slice(0, P.wrongAt) : P.line;
  if (from.length % 2 === 1) return;
  setFeedback({ cls: 'muted', key: 'thinking' });
  try {
    const s = await post(`/api/puzzles/${enc(p.id)}/solution`, { moves: from });
    P.helped = true;
    if (!s.line.length) {
      setFeedback({ key: 'solution.none' });
      await recordResult(false, { help: true });
      return;
    }
    P.arrows = [];
    P.marks = [];
    setFeedback({ key: 'solution', line: s.line, first: Math.floor(from.length / 2) + 1 });
    await recordResult(false, { help: true });
    // the line played out on the board, move by move, from where it starts (before a
    // mistake, the mistake taken back); the move list then steps through it
    Object.assign(P, { line: from.slice(), names: P.names.slice(0, from.length), wrongAt: null, busy: true, playing: true, hintStage: 0 });
    await showPuzzle();
    for (const m of s.line) {
      await sleep(600);
      if (P.current !== p) return;
      await puzzleBoard.animate(m.iccs);
      if (P.current !== p) return;
      P.line = P.line.concat([m.iccs]);
      P.names = P.names.concat([{ chinese: m.chinese, wxf: m.wxf }]);
      await showPuzzle();
    }
    if (P.current !== p) return;
    Object.assign(P, { busy: false, playing: false, done: true, shown: true });
    await showPuzzle();
  } catch (e) {
    Object.assign(P, { busy: false, playing: false });
    setFeedback({ cls: 'error', raw: e.message });
  }
});

$('#p-flip').addEventListener('click', async () => {
  if (!P.current) return;
  P.flip = !flipped();
  await showPuzzle();
});

// the next puzzle: a review that is due, else the untried one rated nearest the player
// (in the collection and tag chosen), as `canju puzzle play` with no id serves
async function nextPuzzle() {
  const c = $('#f-collection').value;
  const tag = $('#f-tag').value;
  try {
    const q = new URLSearchParams();
    if (c) q.set('collection', c);
    if (tag) q.set('tag', tag);
    const m = await api(`/api/progress?${q}`);
    if (m.next) return openPuzzle(m.next.id);
  } catch {
    // (fall back to the list's order)
  }
  const list = filtered();
  if (!list.length) return;
  const at = P.current ? list.findIndex((p) => p.id === P.current.id) : -1;
  const rest = list.slice(at + 1).concat(list.slice(0, at + 1));
  const pick = rest.find((p) => !p.progress);
  if (pick) return openPuzzle(pick.id);
  setFeedback({ key: 'none.left' });
}
$('#p-next').addEventListener('click', nextPuzzle);

// ---------------------------------------------------------------- explorer

const E = { fen: START, rules: null, last: null, flip: false, edit: false, piece: null, loaded: false, info: null, probe: null, probeError: null, solved: null };
const exBoard = new Board($('#explorer-board'));

function explorerHash() {
  const q = new URLSearchParams({ fen: E.fen });
  if (E.rules) q.set('rules', E.rules);
  if (E.last) q.set('last', E.last);
  return `#explorer?${q.toString()}`;
}

// Shows a position in the explorer; a new one gets an address of its own (back and
// forward walk through them).
async function goExplore(fen, { last = null, replacing = false, fromAddress = false } = {}) {
  E.loaded = true;
  try {
    const info = await exBoard.show(fen, { last, flip: E.flip, attacks: true });
    E.fen = info.fen;
    E.last = last;
    E.info = info;
    E.solved = null;
    if (!fromAddress) {
      if (replacing) replace(explorerHash());
      else push(explorerHash());
    }
    $('#fen').value = info.fen;
    exBoard.enabled = !E.edit;
    renderExplorer();
    await probe();
  } catch (e) {
    $('#e-status').innerHTML = `<span class="error">${esc(e.message)}</span>`;
  }
}

function renderExplorer() {
  const info = E.info;
  if (!info) return;
  const side = sideName(info.side_to_move);
  let status = t('status', side, info.pieces);
  if (info.game_over === 'checkmate') status += t('status.mate', side);
  else if (info.game_over === 'stalemate') status += t('status.stalemate', side);
  else if (info.in_check) status += t('status.check');
  if (info.unreachable) status += t('composed', info.unreachable);
  $('#e-status').textContent = status;
  $('#e-back').disabled = NAV <= 0;
  renderProbe();
  renderSolved();
}

const verdictWord = (v) => (v ? t(`verdict.${v}`) : '');
function valueText(verdict, plies, byRule, rules) {
  if (byRule != null) return t(verdict === 'win' ? 'probe.rulewin' : 'probe.ruleloss', byRule, rules);
  if (verdict === 'draw') return t('probe.draw');
  if (plies === 0) return t('probe.lost');
  if (plies == null) return verdictWord(verdict);
  return t(verdict === 'win' ? 'probe.win' : 'probe.loss', movesOf(plies));
}

async function probe() {
  const fen = E.fen;
  E.probe = null;
  E.probeError = null;
  try {
    const rules = E.rules || $('#e-rules').value;
    const p = await api(`/api/probe?fen=${enc(fen)}&rules=${enc(rules)}`);
    if (E.fen !== fen) return;
    E.probe = p;
  } catch (e) {
    if (E.fen !== fen) return;
    E.probeError = e.message.split(';')[0].replace(/^no table value: /, '');
  }
  renderProbe();
}

function renderProbe() {
  const tbody = $('#e-moves tbody');
  tbody.innerHTML = '';
  // what each move attacks (将, 杀, 捉 or 闲), from the legal moves the board learnt
  const attacks = new Map(((E.info && E.info.moves) || []).map((m) => [m.iccs, m]));
  const attackOf = (iccs) => {
    const a = attacks.get(iccs);
    if (!a || !a.attack || a.attack === 'idle') return '';
    const targets = (a.chases || []).map((c) => c.target).join(' ');
    return t(`attack.${a.attack}`) + (targets ? ` ${targets}` : '');
  };
  const row = (m, verdict, plies, byRule, rules) => {
    const tr = document.createElement('tr');
    const count = byRule != null ? t('by.rule', byRule) : plies != null && verdict !== 'draw' ? String(movesOf(plies)) : '';
    tr.innerHTML = `<td>${esc(moveName(m))}</td><td>${esc(m.iccs)}</td><td class="attack">${esc(attackOf(m.iccs))}</td><td class="verdict-${verdict || ''}">${esc(verdictWord(verdict))}</td><td>${esc(count)}</td>`;
    tr.title = verdict ? valueText(verdict, plies, byRule, rules) : '';
    tr.addEventListener('click', () => play(m.iccs));
    tbody.appendChild(tr);
  };
  const p = E.probe;
  if (p) {
    $('#e-verdict').textContent =
      t('probe.head', p.material_chinese, p.material, rulesName(p.rules)) +
      t('probe.for', sideName(p.side_to_move)) +
      valueText(p.verdict, p.plies, p.by_rule, p.rules);
    for (const m of p.moves) row(m, m.verdict, m.plies, m.by_rule, p.rules);
  } else if (E.probeError != null && E.info) {
    $('#e-verdict').textContent = t('probe.none', E.probeError);
    for (const m of E.info.moves) row(m, '', null, null);
  } else {
    $('#e-verdict').textContent = '';
  }
}

async function play(iccs) {
  const info = await api(`/api/moves?fen=${enc(E.fen)}&play=${iccs}`);
  await goExplore(info.fen, { last: iccs });
}
exBoard.onMove = (mv) => play(mv.iccs);

$('#e-load').addEventListener('click', () => goExplore($('#fen').value.trim()));
$('#fen').addEventListener('keydown', (e) => e.key === 'Enter' && $('#e-load').click());
$('#e-rules').addEventListener('change', () => {
  E.rules = $('#e-rules').value;
  replace(explorerHash());
  probe();
});
$('#e-start').addEventListener('click', () => goExplore(START));
$('#e-back').addEventListener('click', () => NAV > 0 && history.back());
$('#e-flip').addEventListener('click', () => {
  E.flip = !E.flip;
  goExplore(E.fen, { last: E.last, replacing: true });
});
$('#e-copy').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText(E.fen);
  } catch {
    $('#fen').select();
    document.execCommand('copy');
  }
  $('#e-status').textContent = t('copied');
});
$('#e-solve').addEventListener('click', async () => {
  const fen = E.fen;
  E.solved = { pending: true };
  renderSolved();
  try {
    const s = await api(`/api/solve?fen=${enc(fen)}&max_moves=${$('#e-max').value}&time=${$('#e-time').value}`);
    if (E.fen === fen) E.solved = s;
  } catch (e) {
    if (E.fen === fen) E.solved = { error: e.message };
  }
  renderSolved();
});

function renderSolved() {
  const out = $('#e-solution');
  const s = E.solved;
  if (!s) {
    out.innerHTML = '';
  } else if (s.pending) {
    out.innerHTML = `<span class="muted">${esc(t('proving'))}</span>`;
  } else if (s.error) {
    out.innerHTML = `<span class="error">${esc(s.error)}</span>`;
  } else if (s.verdict === 'win') {
    const first = s.winning_moves.map((m) => `${esc(moveName(m))} (${movesOf(m.plies)})`).join(LANG === 'zh' ? '，' : ', ');
    const line = s.pv.map((m) => esc(moveName(m))).join(' ');
    out.innerHTML = `<p><b>${esc(t('solve.win', s.moves, s.ending))}</b> · ${esc(t('solve.moves'))}: ${first}</p><p class="muted">${esc(t('solve.line'))}: ${line}</p>`;
  } else if (s.verdict === 'win-within') {
    const line = s.pv.map((m) => esc(moveName(m))).join(' ');
    out.innerHTML = `<p><b>${esc(t('solve.within', s.moves, s.searched_plies))}</b></p><p class="muted">${esc(t('solve.line'))}: ${line}</p>`;
  } else if (s.verdict === 'none') {
    out.innerHTML = `<p>${esc(t('solve.none', s.max_moves))}</p>`;
  } else {
    out.innerHTML = `<p>${esc(t('solve.unknown', s.searched_plies))}</p>`;
  }
}

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
  side.textContent = '⇄';
  side.title = 'side to move';
  side.addEventListener('click', () => {
    const g = fenGrid(E.fen);
    g.side = g.side === 'w' ? 'b' : 'w';
    goExplore(gridFen(g));
  });
  pal.appendChild(side);
}
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
          await goExplore(fen);
        } catch (e) {
          $('#e-status').innerHTML = `<span class="error">${esc(e.message)}</span>`;
        }
      }
    : null;
});

// ---------------------------------------------------------------- theory

const T = { loaded: false, report: null, sayings: [] };

async function loadTheory(claim) {
  T.loaded = true;
  if (!T.sayings.length) {
    T.sayings = await api('/api/sayings');
    const sel = $('#t-saying');
    for (const s of T.sayings) {
      const o = document.createElement('option');
      o.value = s.text;
      o.textContent = `${s.text} (${s.material})`;
      sel.appendChild(o);
    }
    sel.addEventListener('change', () => {
      $('#t-claim').value = sel.value;
      measure();
    });
  }
  $('#t-claim').value = claim || $('#t-saying').value;
  await measure({ replacing: true });
}

function countsTable(title, rows) {
  const pct = (c, n) => (c.legal ? ((100 * n) / c.legal).toFixed(2) : '0.00');
  const [positions, win, draw, loss] = t('theory.col');
  return `<table class="numbers"><thead><tr><th>${esc(title)}</th><th>${esc(positions)}</th><th>${esc(win)}</th><th>${esc(draw)}</th><th>${esc(loss)}</th></tr></thead><tbody>${rows
    .map(([name, c]) => `<tr><td>${esc(name)}</td><td>${c.legal.toLocaleString('en')}</td><td>${pct(c, c.win)}%</td><td>${pct(c, c.draw)}%</td><td>${pct(c, c.loss)}%</td></tr>`)
    .join('')}</tbody></table>`;
}

async function measure({ replacing = false } = {}) {
  const claim = $('#t-claim').value.trim();
  if (!claim) return;
  const address = `#theory?${new URLSearchParams({ claim })}`;
  if (replacing) replace(address);
  else push(address);
  $('#t-verdict').innerHTML = `<span class="muted">${esc(t('counting'))}</span>`;
  $('#t-tables').innerHTML = '';
  $('#t-examples').innerHTML = '';
  $('#t-heatmap').innerHTML = '';
  const asked = (T.asked = claim);
  // the list names the saying when the claim is one of them
  if (T.sayings.some((x) => x.text === claim)) $('#t-saying').value = claim;
  try {
    const r = await api(`/api/theory?claim=${enc(claim)}&limit=6`);
    if (T.asked !== asked) return;
    T.report = r;
    renderTheory();
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

function renderTheory() {
  const r = T.report;
  if (!r) return;
  $('#t-verdict').innerHTML = `<p><b>${esc(LANG === 'zh' ? r.verdict.zh : r.verdict.en)}</b></p><p class="muted">${esc(
    t('theory.meta', r.material_chinese, r.material, rulesName(r.rules), half(r.defence)),
  )}</p>`;
  $('#t-tables').innerHTML = ['red', 'black']
    .map((side) => {
      const all = r.sides.find((s) => s.side_to_move === side);
      const rows = [[t('theory.all'), all]].concat(
        r.conditions.filter((c) => c.side_to_move === side).map((c) => [LANG === 'zh' ? c.name_zh : c.name, c]),
      );
      return countsTable(t('theory.side', sideName(side)), rows);
    })
    .join('');
  // the longest win and the counter-examples as small boards, each opening in the explorer
  const card = (fen, caption) =>
    `<figure class="example" data-fen="${esc(fen)}" title="${esc(fen)}"><img alt="${esc(fen)}" loading="lazy" src="${esc(boardUrl(fen))}"><span>${esc(caption)}</span></figure>`;
  let ex = '';
  if (r.longest) ex += `<p>${esc(t('theory.longest', movesOf(r.longest.plies)))}</p><div class="examples">${card(r.longest.fen, r.longest.fen.split(' ')[0])}</div>`;
  if (r.counterexamples.length)
    ex += `<p>${esc(t('theory.examples', r.counterexample_count.toLocaleString('en')))}</p><div class="examples">${r.counterexamples
      .map((c) => card(c.fen, LANG === 'zh' ? c.value_zh : c.value))
      .join('')}</div>`;
  $('#t-examples').innerHTML = ex;
  $$('#t-examples .example').forEach((a) =>
    a.addEventListener('click', () => {
      showTab('explorer', false);
      goExplore(a.dataset.fen);
    }),
  );
}

async function heatmap() {
  if (!T.report) return;
  const side = $('#t-side').value;
  $('#t-heatmap').innerHTML = `<span class="muted">${esc(t('drawing'))}</span>`;
  try {
    $('#t-heatmap').innerHTML = await api(
      `/api/theory/heatmap.svg?claim=${enc($('#t-claim').value.trim())}&piece=${enc($('#t-piece').value)}${side ? `&side=${side}` : ''}&lang=${LANG}`,
    );
  } catch (e) {
    $('#t-heatmap').innerHTML = `<span class="error">${esc(e.message)}</span>`;
  }
}
$('#t-measure').addEventListener('click', () => measure());
$('#t-claim').addEventListener('keydown', (e) => e.key === 'Enter' && measure());
$('#t-heat').addEventListener('click', heatmap);

// ---------------------------------------------------------------- language

let SERVER_RULES = 'asian';
function applyLang() {
  document.documentElement.lang = LANG === 'zh' ? 'zh' : 'en';
  $$('[data-i18n]').forEach((el) => (el.textContent = t(el.dataset.i18n)));
  $$('[data-i18n-placeholder]').forEach((el) => (el.placeholder = t(el.dataset.i18nPlaceholder)));
  $$('#f-collection option[data-value]').forEach((o) => (o.textContent = collectionName(o.dataset.value)));
  $$('#f-tag option[data-value]').forEach((o) => (o.textContent = tagName(o.dataset.value)));
  $('#lang').textContent = LANG === 'zh' ? 'EN' : '中文';
  $('#footer').textContent = t('footer', rulesName(SERVER_RULES));
  if (!P.current) $('#puzzle-title').textContent = t('p.choose');
  renderMe();
  renderList();
  renderPuzzle();
  renderExplorer();
  renderTheory();
}
$('#lang').addEventListener('click', () => {
  LANG = LANG === 'zh' ? 'en' : 'zh';
  try {
    localStorage.setItem('canju-lang', LANG);
  } catch {
    // (not kept: this page only)
  }
  applyLang();
  // the boards again, their file numbers in the language
  if (P.current && !P.busy) showPuzzle();
  if (E.loaded && E.info) exBoard.show(E.fen, { last: E.last, flip: E.flip, attacks: true });
});

// ---------------------------------------------------------------- start

// the address decides what is shown: a puzzle, an explorer position, a saying
async function route({ initial = false } = {}) {
  const { tab, id, q } = parseHash();
  const given = (tab === 'explorer' && q.get('fen')) || (tab === 'theory' && q.get('claim'));
  showTab(tab, !given);
  if (tab === 'explorer' && q.get('fen')) {
    if (q.get('rules')) {
      E.rules = q.get('rules');
      $('#e-rules').value = E.rules;
    }
    await goExplore(q.get('fen'), { last: q.get('last'), fromAddress: true });
  } else if (tab === 'theory' && q.get('claim') && T.sayings.length) {
    $('#t-claim').value = q.get('claim');
    await measure({ replacing: true });
  } else if (tab === 'theory' && q.get('claim')) {
    await loadTheory(q.get('claim'));
  } else if (tab === 'puzzles' && id && (!P.current || P.current.id !== id)) {
    await openPuzzle(id, { pushed: false });
  } else if (tab === 'puzzles' && initial && !P.current) {
    await nextPuzzle();
  }
}
window.addEventListener('popstate', () => {
  NAV = (history.state && history.state.n) || 0;
  route();
});

buildPalette();
applyLang();
// the server's rule set: the explorer's default and the footer
api('/api')
  .then((a) => {
    SERVER_RULES = a.rules;
    if (!E.rules) $('#e-rules').value = a.rules;
    applyLang();
  })
  .catch(() => {});
loadMe();
loadPuzzles()
  .then(() => route({ initial: true }))
  .catch((e) => setFeedback({ cls: 'error', raw: e.message }));
