// The play page: a game against the bots, the engine and the bots running in the page as
// WebAssembly (the aeroplane-web crate; window.wasm_bindgen from `wasm-bindgen --target
// no-modules`, the module inlined as base64 by web/build.sh). The board is the viewer's (its
// SVG comes from src/viewer/svg.rs through the module; the planes use the same markup as the
// viewer's script, with each seat's letter). No network, no libraries.
//
// The game itself lives in a Web Worker (made from a Blob of the inlined bindgen script and
// workerMain below, so the page works from file://): a long bot think leaves the page alive,
// shows a "thinking" sign and can be cancelled (the worker is ended and a new one rebuilds the
// game from its record). The game in progress is saved in localStorage after every change and
// comes back on reload.
(function () {
  'use strict';
  var NAMES = ['red', 'yellow', 'blue', 'green'];
  var LETTERS = ['R', 'Y', 'B', 'G'];
  var SVG = 'http://www.w3.org/2000/svg';
  var SAVE_KEY = 'aeroplane-game-in-progress';
  var COACH_KEY = 'aeroplane-coach';
  var MAX_SEED = '18446744073709551615';
  // wasm-bindgen's no-modules script declares it with `let` (a global binding, not a window property).
  var wasm = wasm_bindgen; // eslint-disable-line no-undef
  var wasmBytes = null; // the module's bytes (each worker instantiates them)
  var worker = null;
  var calls = {};       // worker requests waiting: id -> resolve
  var callId = 0;
  var gen = 0;          // the game's generation: a new game, an upload or a cancel makes a new one
  var board = null;     // {svg, layout, colours, plane_radius}
  var state = null;     // the last state()
  var record = '';      // the last record()
  var played = [];      // every roll of the game, as rolls() gives them
  var shown = 0;        // rolls drawn so far
  var busy = false;     // a worker call, a bot move or an animation is under way
  var paused = false;   // a bot's think was cancelled: the bots wait for Continue
  var timer = null;
  var thinkTimer = null;
  var thinkBySeat = [[], [], [], []];  // each bot decision's time in the module (ms), by seat
  var coach = {};       // roll number -> {values, best, bot, equity, chosen, cost}
  var coachOn = false;
  var hovered = null;   // the legal move drawn on the board while hovered or focused
  var pendingChoice = null; // a log of several games waiting for the person's choice: {name, text}

  function $(id) { return document.getElementById(id); }
  function el(name, attrs, text) {
    var e = document.createElementNS(SVG, name);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function html(name, attrs, text) {
    var e = document.createElement(name);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function clear(e) { while (e.firstChild) { e.removeChild(e.firstChild); } }
  function round(v) { return Math.round(v * 10) / 10; }
  function errorText(e) { return e && e.message ? e.message : String(e); }

  function say(text, isError) {
    var m = $('message');
    m.textContent = text || '';
    m.className = text ? (isError ? 'error' : 'info') : '';
  }
  // The live region: whose turn, the rolls, the bots' moves (the last few lines).
  function announce(text) {
    var a = $('announce');
    a.appendChild(html('p', {}, text));
    while (a.childNodes.length > 4) { a.removeChild(a.firstChild); }
  }

  // --- The worker: the game, off the main thread -------------------------------------------

  // Runs in the worker, after the bindgen script (which defines wasm_bindgen there too).
  function workerMain() {
    /* global wasm_bindgen */
    var game = null;
    var ready = null;
    self.onmessage = function (e) {
      var m = e.data;
      if (m.op === 'init') {
        ready = wasm_bindgen({ module_or_path: m.arg });
        ready.then(function () { self.postMessage({ id: m.id, ok: true }); },
          function (err) { self.postMessage({ id: m.id, ok: false, error: String(err && err.message || err) }); });
        return;
      }
      ready.then(function () {
        var reply = { id: m.id, ok: true };
        try {
          var G = wasm_bindgen.WebGame;
          if (m.op === 'games') {
            // A log's games to choose from; the game in play is untouched.
            self.postMessage({ id: m.id, ok: true, games: wasm_bindgen.games(m.arg) });
            return;
          }
          if (m.op === 'new' || m.op === 'load' || m.op === 'restore') {
            var fresh = m.op === 'new' ? new G(m.arg) : m.op === 'load' ? G.fromRecord(m.arg.text, m.arg.game)
              : G.fromSaved(m.arg.log, m.arg.rolls, m.arg.rolled, m.arg.game);
            if (game) { game.free(); }
            game = fresh;
            reply.board = game.board();
          } else if (m.op === 'roll') { game.roll(); }
          else if (m.op === 'apply') { game.apply(m.arg); }
          else if (m.op === 'undo') { game.undo(); }
          else if (m.op === 'botMove') {
            var t0 = performance.now();
            game.botMove();
            reply.ms = performance.now() - t0;
          } else if (m.op === 'coach') { reply.coach = game.coach(); }
          // 'sync': the game as it is.
          reply.state = game.state();
          reply.rolls = game.rolls(m.from);
          reply.record = game.record();
        } catch (err) {
          reply = { id: m.id, ok: false, error: err && err.message ? err.message : String(err) };
        }
        self.postMessage(reply);
      });
    };
  }

  function startWorker() {
    if (worker) { worker.terminate(); }
    for (var id in calls) { delete calls[id]; }
    var src = $('bindgen-js').textContent + '\n;(' + workerMain.toString() + ')();\n';
    var url = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
    worker = new Worker(url);
    URL.revokeObjectURL(url);
    worker.onmessage = function (e) {
      var done = calls[e.data.id];
      delete calls[e.data.id];
      if (done) { done(e.data); }
    };
    worker.onerror = function (e) { say('The game engine stopped: ' + (e.message || 'an error in its worker'), true); };
    return call('init', wasmBytes);
  }

  // A request to the worker; resolves with its reply ({ok, error} or {ok, state, rolls, record, ...}).
  function call(op, arg, from) {
    return new Promise(function (resolve) {
      var id = ++callId;
      calls[id] = resolve;
      worker.postMessage({ id: id, op: op, arg: arg, from: from || 0 });
    });
  }

  // --- The board: the viewer's markup -------------------------------------------------------

  function spot(seat, plane, step) {
    var L = board.layout;
    return step < 0 ? L.hangar[seat][plane] : L.spots[seat][Math.min(step, L.centre)];
  }
  function where(step) {
    if (step < 0) { return 'in the hangar'; }
    if (step === 0) { return 'on the take-off cell'; }
    if (step === board.layout.centre) { return 'home'; }
    return 'at step ' + step;
  }
  // The legal moves of the person's roll waiting that move plane `plane` of `seat` from `step`.
  function movesOf(seat, planes, step) {
    if (!personChooses() || seat !== state.to_move) { return []; }
    return state.legal.filter(function (mv) {
      return mv.from === step && mv.planes.some(function (p) { return planes.indexOf(p) >= 0; });
    });
  }
  // The same markup as src/viewer/svg.rs's planes (and the viewer's script), each labelled with
  // its seat's letter and number (seats told apart by more than colour), named for screen
  // readers, and, when it can move, a button reachable by Tab.
  function pile(g, seat, planes, step) {
    var at = spot(seat, planes[0], step);
    var R = board.plane_radius;
    var moves = movesOf(seat, planes, step);
    var name = NAMES[seat] + ' plane' + (planes.length > 1 ? 's ' : ' ') + planes.join(', ') + ' ' + where(step);
    var attrs = { 'class': 'pile' + (moves.length ? ' mine' : ''), 'data-seat': seat, 'data-planes': planes.join(','), 'data-step': step };
    if (moves.length) {
      attrs.role = 'button';
      attrs.tabindex = '0';
      attrs['aria-label'] = name + ': ' + (moves.length === 1 ? 'play ' + moves[0].text : moves.length + ' moves, listed below');
    } else {
      attrs.role = 'img';
      attrs['aria-label'] = name;
    }
    var p = el('g', attrs);
    p.appendChild(el('title', {}, name));
    // A wider hit area than the disc, for fingers (invisible).
    p.appendChild(el('circle', { 'class': 'hit', cx: at.x, cy: at.y, r: R + 7, fill: 'transparent' }));
    for (var i = planes.length - 1; i >= 0; i--) {
      p.appendChild(el('circle', {
        'class': 'plane', cx: round(at.x + 4 * i), cy: round(at.y + 4 * i), r: R,
        fill: board.colours[seat], stroke: '#1d1b18', 'stroke-width': 1.5
      }));
    }
    p.appendChild(el('text', { 'class': 'plane-label', x: at.x, y: at.y, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, LETTERS[seat] + planes[0]));
    if (planes.length > 1) {
      p.appendChild(el('circle', { 'class': 'badge', cx: at.x + 11, cy: at.y - 11, r: 7, fill: '#fff', stroke: '#1d1b18' }));
      p.appendChild(el('text', { 'class': 'badge-label', x: at.x + 11, y: at.y - 11, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, String(planes.length)));
    }
    p.addEventListener('click', function () { clickPlane(seat, planes, step); });
    p.addEventListener('keydown', function (e) {
      if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); e.stopPropagation(); clickPlane(seat, planes, step); }
    });
    if (moves.length === 1) {
      p.addEventListener('mouseenter', function () { hover(moves[0]); });
      p.addEventListener('focus', function () { hover(moves[0]); });
      p.addEventListener('mouseleave', function () { hover(null); });
      p.addEventListener('blur', function () { hover(null); });
    }
    g.appendChild(p);
  }
  function drawPlanes(steps) {
    var g = $('planes');
    clear(g);
    for (var seat = 0; seat < 4; seat++) {
      var s = steps[seat];
      if (!s || !s.length) { continue; }
      var done = [];
      for (var p = 0; p < s.length; p++) {
        if (done[p]) { continue; }
        var here = [p];
        if (s[p] >= 0) {
          for (var q = p + 1; q < s.length; q++) { if (s[q] === s[p]) { here.push(q); } }
        }
        here.forEach(function (q) { done[q] = true; });
        pile(g, seat, here, s[p]);
      }
    }
  }
  function arrow(g, seat, mv, cls) {
    var from = spot(seat, mv.planes[0], mv.from);
    var to = spot(seat, mv.planes[0], mv.to);
    if (from.x === to.x && from.y === to.y) {
      g.appendChild(el('circle', { 'class': cls, cx: to.x, cy: to.y, r: board.plane_radius + 6, fill: 'none' }));
    } else {
      g.appendChild(el('line', { 'class': cls, x1: from.x, y1: from.y, x2: to.x, y2: to.y, 'marker-end': 'url(#head)' }));
    }
  }
  function drawArrow(seat, mv) {
    var g = $('marks');
    clear(g);
    if (mv) { arrow(g, seat, mv, 'move'); }
  }
  // The viewer's preview of a move (src/viewer/viewer.js, preview): its cells marked and tagged
  // with their steps, and an arrow.
  function cellOf(seat, plane, step) {
    var q = step < 0 ? '[data-hangar="' + seat + ':' + plane + '"]'
      : '[data-at~="' + seat + ':' + Math.min(step, board.layout.centre) + '"]';
    return $('board').querySelector(q);
  }
  function hover(mv) {
    hovered = mv;
    var g = $('preview');
    clear(g);
    var on = $('board').querySelectorAll('.option-from, .option-to');
    for (var k = 0; k < on.length; k++) { on[k].classList.remove('option-from', 'option-to'); }
    if (!mv || !state) { return; }
    var seat = state.to_move;
    var R = board.plane_radius;
    [['from', mv.from], ['to', mv.to]].forEach(function (end) {
      var c = cellOf(seat, mv.planes[0], end[1]);
      if (c) { c.classList.add('option-' + end[0]); }
      var at = spot(seat, mv.planes[0], end[1]);
      var label = end[1] < 0 ? 'H' : String(end[1]);
      var tag = el('g', { 'class': 'step-tag tag-option', 'data-end': end[0], 'data-step': end[1] });
      var w = 8 + 7 * label.length;
      tag.appendChild(el('rect', { x: round(at.x - w / 2), y: round(at.y - R - 17), width: w, height: 14, rx: 3 }));
      tag.appendChild(el('text', { x: at.x, y: round(at.y - R - 10), 'text-anchor': 'middle', 'dominant-baseline': 'central' }, label));
      g.appendChild(tag);
    });
    arrow(g, seat, mv, 'option');
  }

  // The die, drawn: its pips for 1 to 6, blank before a roll.
  function drawDie(n, seat) {
    var d = $('die');
    clear(d);
    d.appendChild(el('rect', { x: 2, y: 2, width: 40, height: 40, rx: 7, fill: '#fff', stroke: seat === undefined ? '#9a9386' : board.colours[seat], 'stroke-width': 3 }));
    var P = { 1: [[22, 22]], 2: [[12, 12], [32, 32]], 3: [[12, 12], [22, 22], [32, 32]], 4: [[12, 12], [32, 12], [12, 32], [32, 32]],
      5: [[12, 12], [32, 12], [22, 22], [12, 32], [32, 32]], 6: [[12, 11], [32, 11], [12, 22], [32, 22], [12, 33], [32, 33]] }[n] || [];
    P.forEach(function (c) { d.appendChild(el('circle', { 'class': 'pip', cx: c[0], cy: c[1], r: 4, fill: '#1d1b18' })); });
    d.setAttribute('aria-label', n ? 'the die shows ' + n + (seat === undefined ? '' : ' (' + NAMES[seat] + ')') : 'the die: not rolled yet');
    d.setAttribute('data-pips', String(P.length));
  }

  // Slides the moved pile from its cell to its new one, then calls done (not if another game
  // began meanwhile: its animation cannot start a move in the new game).
  function animate(roll, before, done) {
    var g0 = gen;
    var ms = Number($('speed').value);
    var mv = roll.chosen === null ? null : roll.legal[roll.chosen];
    drawArrow(roll.seat, mv);
    drawDie(roll.roll, roll.seat);
    if (!mv || ms === 0) { drawPlanes(roll.after); done(); return; }
    drawPlanes(before);
    var moving = null;
    var piles = $('planes').querySelectorAll('.pile[data-seat="' + roll.seat + '"][data-step="' + mv.from + '"]');
    for (var k = 0; k < piles.length; k++) {
      if (piles[k].getAttribute('data-planes').split(',').indexOf(String(mv.planes[0])) >= 0) { moving = piles[k]; }
    }
    var from = spot(roll.seat, mv.planes[0], mv.from);
    var to = spot(roll.seat, mv.planes[0], mv.to);
    var t0 = null;
    function frame(t) {
      if (g0 !== gen) { return; }
      if (t0 === null) { t0 = t; }
      var k = Math.min(1, (t - t0) / (ms * 0.6));
      if (moving) { moving.setAttribute('transform', 'translate(' + round((to.x - from.x) * k) + ',' + round((to.y - from.y) * k) + ')'); }
      if (k < 1) { window.requestAnimationFrame(frame); return; }
      drawPlanes(roll.after);
      timer = window.setTimeout(function () { if (g0 === gen) { done(); } }, ms * 0.4);
    }
    window.requestAnimationFrame(frame);
  }

  // --- The panel ----------------------------------------------------------------------------

  function seatSpan(seat) {
    var s = html('span', { 'class': 'seat' });
    var sw = html('span', { 'class': 'swatch', 'aria-hidden': 'true' }, LETTERS[seat]);
    sw.style.background = board.colours[seat];
    s.appendChild(sw);
    var who = state.seats.filter(function (x) { return x.seat === seat; })[0];
    s.appendChild(document.createTextNode(NAMES[seat] + ' (' + (who ? who.player : '?') + ')'));
    return s;
  }
  function fmtValue(v) { return v === null || v === undefined ? '–' : (Math.round(v * 1000) / 1000).toFixed(3); }
  function stepText(s) { return s < 0 ? 'H' : String(s); }
  function personChooses() { return !!state && state.person_to_move && state.phase === 'choose'; }
  function hasPerson() { return !!state && state.seats.some(function (s) { return s.person; }); }

  function showRoll(roll, ms) {
    var box = $('last');
    clear(box);
    var who = html('p', { 'class': 'who' });
    who.appendChild(document.createTextNode('Roll ' + roll.n + ': '));
    who.appendChild(seatSpan(roll.seat));
    who.appendChild(document.createTextNode(' rolled ' + roll.roll + ': ' + roll.text +
      (ms !== undefined ? ' (thought ' + ms.toFixed(1) + ' ms)' : '')));
    box.appendChild(who);
    var c = coach[roll.n];
    if (c && c.cost !== undefined) {
      box.appendChild(html('p', { 'class': 'cost coach-only', id: 'cost' }, costText(roll, c)));
    }
    if (roll.legal.length > 1) {
      var table = html('table', { 'class': 'moves', id: 'last-moves' });
      var hr = html('tr');
      var heads = ['', 'move', 'from → to', 'what'];
      if (roll.values) { heads.push('value'); }
      heads.forEach(function (h) {
        var th = html('th', { 'class': h === 'value' ? 'num' : '' }, h);
        if (h === 'value') { th.setAttribute('title', "the bot's value of each move for its seat, on its own scale (td: expected return -1 to 1; mcts, montecarlo: mean reward 0 to 1; expectimax: its evaluation)"); }
        hr.appendChild(th);
      });
      table.appendChild(hr);
      roll.legal.forEach(function (mv, k) {
        var tr = html('tr', { 'class': k === roll.chosen ? 'chosen' : '' });
        tr.appendChild(html('td', {}, k === roll.chosen ? '▶' : ''));
        tr.appendChild(html('td', {}, mv.notation));
        tr.appendChild(html('td', {}, stepText(mv.from) + ' → ' + stepText(mv.to)));
        tr.appendChild(html('td', {}, mv.text));
        if (roll.values) { tr.appendChild(html('td', { 'class': 'num' }, fmtValue(roll.values[k]))); }
        table.appendChild(tr);
      });
      box.appendChild(table);
    }
    $('history').appendChild(html('li', {}, NAMES[roll.seat] + ' (' + roll.player + ') ' + roll.roll + ': ' + roll.text));
    var seatInfo = state && state.seats.filter(function (x) { return x.seat === roll.seat; })[0];
    announce((seatInfo && seatInfo.person ? 'You (' + NAMES[roll.seat] + ')' : NAMES[roll.seat] + ' (' + roll.player + ')') +
      ' rolled ' + roll.roll + ': ' + roll.text + '.');
  }

  // The cost of the person's move as `aeroplane grade` counts it: the best move's equity minus
  // the chosen one's, in millipoints (by the coach's td net; another coach's scale otherwise).
  function costText(roll, c) {
    var best = roll.legal[c.best];
    var head = c.chosen === c.best ? 'Your move was the coach\'s best' : 'Your move cost ' + fmtCost(c) + ' (best: ' + (c.best + 1) + '. ' + best.text + ')';
    var total = 0;
    var n = 0;
    Object.keys(coach).forEach(function (k) {
      if (coach[k].cost !== undefined && Number(k) <= roll.n && coach[k].equity === c.equity) { total += coach[k].cost; n += 1; }
    });
    return head + '. Game total: ' + fmtCost({ cost: total, equity: c.equity }) + ' over ' + n + ' decision' + (n === 1 ? '' : 's') + ' (coach ' + c.bot + ').';
  }
  function fmtCost(c) { return c.equity ? (c.cost * 1000).toFixed(1) + ' mp' : c.cost.toFixed(3) + ' (its evaluation, not equity)'; }

  function render() {
    var personMoves = personChooses();
    document.body.setAttribute('data-phase', state.phase);
    document.body.setAttribute('data-rolls', String(state.rolls));
    document.body.setAttribute('data-position', state.position);
    document.body.setAttribute('data-game', state.game_text);
    drawPlanes(state.steps);
    if (state.phase === 'choose') { drawDie(state.roll, state.to_move); }
    var st = $('status');
    clear(st);
    var p = html('p', { 'class': 'status' });
    var said;
    if (state.phase === 'over') {
      said = 'Game over: ' + (state.winner === null ? 'no winner' + (state.unfinished ? ' (stopped by max_turns)' : '')
        : NAMES[state.winner] + ' wins') + ' after ' + state.turns + ' turns.';
      p.textContent = said + ' Download the record, undo, or start a new game.';
    } else {
      p.appendChild(document.createTextNode('Turn ' + Math.max(1, state.turns) + ' · '));
      p.appendChild(seatSpan(state.to_move));
      p.appendChild(document.createTextNode(state.phase === 'choose'
        ? ' rolled ' + state.roll + ': choose a move (a plane on the board, or a move below)'
        : state.person_to_move ? ': your roll' : ' (bot) to roll'));
      said = state.person_to_move ? (state.phase === 'choose' ? 'Your move, ' + NAMES[state.to_move] + ': you rolled ' + state.roll +
        ', ' + state.legal.length + ' moves.' : 'Your roll, ' + NAMES[state.to_move] + '.') : '';
    }
    st.appendChild(p);
    if (said && said !== st.getAttribute('data-said')) { announce(said); }
    st.setAttribute('data-said', said || '');
    var list = $('legal');
    clear(list);
    if (personMoves) {
      var c = coach[state.rolls + 1];
      if (c && c.error) { c = null; }
      state.legal.forEach(function (mv, k) {
        var li = html('li');
        var b = html('button', { type: 'button', 'data-index': k, 'class': c && c.best === k ? 'best' : '' });
        b.appendChild(document.createTextNode((k + 1) + '. ' + mv.text));
        if (c) {
          var v = html('span', { 'class': 'coach-value coach-only' }, (c.best === k ? '★ best ' : '') + fmtValue(c.values[k]));
          b.appendChild(v);
        }
        b.setAttribute('aria-label', (k + 1) + '. ' + mv.text + (c && coachOn ? ', coach value ' + fmtValue(c.values[k]) + (c.best === k ? ', the best' : '') : ''));
        b.addEventListener('click', function () { play(k); });
        b.addEventListener('mouseenter', function () { hover(mv); });
        b.addEventListener('focus', function () { hover(mv); });
        b.addEventListener('mouseleave', function () { hover(null); });
        b.addEventListener('blur', function () { hover(null); });
        li.appendChild(b);
        list.appendChild(li);
      });
    } else {
      hover(null);
    }
    buttons();
    var pl = $('seat-list');
    clear(pl);
    state.seats.forEach(function (s) {
      var li = html('li');
      li.appendChild(seatSpan(s.seat));
      li.appendChild(document.createTextNode(state.ranks[s.seat] ? ' · rank ' + state.ranks[s.seat] : ''));
      var t = thinkBySeat[s.seat];
      if (!s.person && t.length) {
        var sum = t.reduce(function (a, b) { return a + b; }, 0);
        li.appendChild(html('span', { 'class': 'think' }, ' · thinks ' + (sum / t.length).toFixed(1) + ' ms a move (' +
          t.length + ' decisions, longest ' + Math.max.apply(null, t).toFixed(1) + ' ms)'));
      }
      pl.appendChild(li);
    });
  }
  function buttons() {
    if (!state) { return; }
    $('roll').disabled = !(state.person_to_move && state.phase === 'roll') || busy;
    $('undo').disabled = !state.can_undo || busy;
    $('continue').hidden = !paused;
  }

  // Takes a worker reply that changed the game: the state, the record (saved), new rolls.
  function take(reply) {
    state = JSON.parse(reply.state);
    record = reply.record;
    save();
    return JSON.parse(reply.rolls);
  }

  // Draws the rolls new since the last call (animating each), then lets the bots go on.
  function catchUp(rolls, ms, then) {
    var g0 = gen;
    var i = 0;
    busy = true;
    function next() {
      if (g0 !== gen) { return; }
      if (i >= rolls.length) { busy = false; render(); if (then) { then(); } return; }
      var r = rolls[i++];
      var from = played.length ? played[played.length - 1].after : startSteps();
      played.push(r);
      shown = r.n;
      showRoll(r, i === rolls.length ? ms : undefined);
      animate(r, from, next);
    }
    next();
  }
  function startSteps() {
    return state.steps.map(function (s) { return s.map(function () { return -1; }); });
  }

  function botsGo() {
    if (!state || state.phase === 'over' || state.person_to_move || busy || paused) {
      if (personChooses()) { askCoach(); }
      return;
    }
    busy = true;
    buttons();
    var g0 = gen;
    var seat = state.to_move;
    var who = state.seats.filter(function (x) { return x.seat === seat; })[0];
    window.clearTimeout(thinkTimer);
    thinkTimer = window.setTimeout(function () {
      if (g0 !== gen) { return; }
      $('thinking-text').textContent = NAMES[seat] + ' (' + who.player + ') is thinking…';
      $('thinking').hidden = false;
      announce(NAMES[seat] + ' (' + who.player + ') is thinking.');
    }, 250);
    call('botMove', null, shown).then(function (reply) {
      if (g0 !== gen) { return; }
      window.clearTimeout(thinkTimer);
      $('thinking').hidden = true;
      if (!reply.ok) {
        busy = false;
        say('The bot could not move: ' + reply.error, true);
        render();
        return;
      }
      var rolls = take(reply);
      // A decision (a roll with two or more legal moves): the bot was asked.
      if (rolls.length && rolls[rolls.length - 1].legal.length > 1) {
        thinkBySeat[seat].push(reply.ms);
        document.body.setAttribute('data-think-ms', JSON.stringify(thinkBySeat));
      }
      catchUp(rolls, reply.ms, botsGo);
    });
  }

  // Cancels a bot's think: the worker is ended, a new one rebuilds the game from its record
  // before the bot's roll, and the bots wait for Continue.
  function cancelThink() {
    if ($('thinking').hidden) { return; }
    gen += 1;
    window.clearTimeout(thinkTimer);
    $('thinking').hidden = true;
    paused = true;
    var g0 = gen;
    var saved = { log: record, rolls: state.rolls, rolled: false, game: state.game_text };
    startWorker().then(function () { return call('restore', saved, 0); }).then(function (reply) {
      if (g0 !== gen) { return; }
      busy = false;
      if (!reply.ok) { say('The game could not be rebuilt after the cancel: ' + reply.error, true); return; }
      take(reply);
      render();
      say('Cancelled ' + NAMES[state.to_move] + "'s think: the bots wait. Continue lets them play on; or undo, or start a new game with another bot.");
      announce('Cancelled. The bots wait.');
      $('continue').focus();
    });
  }

  // --- The coach ----------------------------------------------------------------------------

  // The coach's values of the person's roll waiting (asked once per roll; shown when the coach is on).
  function askCoach() {
    var n = state.rolls + 1;
    if (!personChooses() || coach[n] || busy) { return; }
    var g0 = gen;
    busy = true;
    call('coach', null, shown).then(function (reply) {
      if (g0 !== gen) { return; }
      busy = false;
      if (reply.ok) {
        var c = JSON.parse(reply.coach);
        coach[n] = { values: c.values, best: c.best, bot: c.bot, equity: c.equity };
        save();
      } else {
        coach[n] = { error: reply.error, values: [], best: -1 };
        say('The coach could not rate the moves: ' + reply.error, true);
      }
      render();
    });
  }
  function setCoach(on) {
    coachOn = on;
    try { window.localStorage.setItem(COACH_KEY, on ? 'on' : 'off'); } catch (e) { /* not kept */ }
    document.body.classList.toggle('coach-on', on);
    $('coach').setAttribute('aria-pressed', on ? 'true' : 'false');
    $('coach').textContent = on ? 'Coach: on' : 'Coach: off';
    if (state) { render(); }
  }

  // --- Saving the game in progress ----------------------------------------------------------

  function save() {
    if (!state) { return; }
    try {
      window.localStorage.setItem(SAVE_KEY, JSON.stringify({
        log: record, rolls: state.rolls, rolled: personChooses(), coach: coach,
        seed: state.seed_text, phase: state.phase, game: state.game_text
      }));
    } catch (e) { /* storage full or denied: the game goes on unsaved */ }
  }
  function saved() {
    try {
      var s = JSON.parse(window.localStorage.getItem(SAVE_KEY));
      return s && typeof s.log === 'string' && typeof s.rolls === 'number' ? s : null;
    } catch (e) { return null; }
  }
  // Whether starting another game would discard a person's game in progress (asks first).
  function mayDiscard(what) {
    if (!state || state.phase === 'over' || state.rolls === 0 || !hasPerson()) { return true; }
    return window.confirm(what + ' discards the game in progress (seed ' + state.seed_text + ', ' + state.rolls +
      ' rolls played). Download its record first to keep it. Discard it?');
  }

  // --- A person's actions -------------------------------------------------------------------

  function rollDie() {
    if (busy || !state) { return; }
    if (!(state.person_to_move && state.phase === 'roll')) {
      say(state.phase === 'over' ? 'The game is over.' : state.phase === 'choose'
        ? 'Choose a move for your roll first.' : 'It is not your roll: a bot is playing.', true);
      return;
    }
    act('roll', null);
  }

  function play(k) {
    if (busy || !state) { return; }
    var n = state.rolls + 1;
    var c = coach[n];
    act('apply', k, function () {
      if (c && !c.error && c.values[k] !== null && c.values[c.best] !== null) {
        c.chosen = k;
        c.cost = Math.max(0, c.values[c.best] - c.values[k]);
        save();
      }
    });
  }

  // A person's roll or move in the worker, then the new rolls drawn and the bots on.
  function act(op, arg, after) {
    var g0 = gen;
    busy = true;
    buttons();
    call(op, arg, shown).then(function (reply) {
      if (g0 !== gen) { return; }
      busy = false;
      if (!reply.ok) { say(reply.error, true); render(); return; }
      if (after) { after(); }
      var rolls = take(reply);
      say('');
      catchUp(rolls, undefined, botsGo);
    });
  }

  function clickPlane(seat, planes, step) {
    if (busy || !state) { return; }
    if (state.phase === 'over') { say('The game is over: that plane cannot move.', true); return; }
    if (!state.person_to_move) { say('It is not your turn: ' + NAMES[state.to_move] + ' (a bot) is playing.', true); return; }
    if (seat !== state.to_move) { say('That is a ' + NAMES[seat] + ' plane: you play ' + NAMES[state.to_move] + '.', true); return; }
    if (state.phase === 'roll') { say('Roll the die first.', true); return; }
    var moves = movesOf(seat, planes, step);
    if (moves.length === 0) {
      say(NAMES[seat] + ' plane ' + planes.join(',') + ' ' + where(step) + ' has no legal move for a roll of ' + state.roll +
        (step < 0 ? ' (a launch needs a launching roll)' : '') + ': choose one of the moves listed.', true);
      return;
    }
    if (moves.length > 1) {
      say('That plane has ' + moves.length + ' moves (fly or stay): choose one in the list.', false);
      return;
    }
    play(moves[0].index);
  }

  function undo() {
    if (busy || !state) { return; }
    window.clearTimeout(timer);
    var g0 = gen;
    busy = true;
    call('undo', null, 0).then(function (reply) {
      if (g0 !== gen) { return; }
      busy = false;
      if (!reply.ok) { say(reply.error, true); buttons(); return; }
      paused = false;
      redrawAll(reply);
      say('Undone: back to your last decision (the seeded die gives the same roll again).');
      botsGo();
    });
  }

  // After a refused new game or upload (the worker kept its game): the rolls the board missed
  // drawn, and the bots on.
  function resync() {
    var g0 = gen;
    busy = true;
    call('sync', null, shown).then(function (reply) {
      if (g0 !== gen) { return; }
      busy = false;
      if (!reply.ok) { buttons(); return; }
      catchUp(take(reply), undefined, botsGo);
    });
  }

  // Everything drawn again from a reply whose rolls are all the game's.
  function redrawAll(reply) {
    var rolls = take(reply);
    Object.keys(coach).forEach(function (k) {
      if (Number(k) > state.rolls + (state.phase === 'choose' ? 1 : 0)) { delete coach[k]; }
      else if (Number(k) === state.rolls + 1) { delete coach[k].chosen; delete coach[k].cost; }
    });
    save();
    clear($('history'));
    clear($('last'));
    clear($('marks'));
    drawDie(0);
    played = rolls;
    shown = rolls.length;
    rolls.forEach(function (r) { $('history').appendChild(html('li', {}, NAMES[r.seat] + ' (' + r.player + ') ' + r.roll + ': ' + r.text)); });
    if (rolls.length) {
      var r = rolls[rolls.length - 1];
      $('history').removeChild($('history').lastChild);
      showRoll(r);
      drawArrow(r.seat, r.chosen === null ? null : r.legal[r.chosen]);
      drawDie(r.roll, r.seat);
    }
    render();
  }

  function download() {
    if (!state) { return; }
    var blob = new Blob([record], { type: 'application/x-ndjson' });
    var a = html('a', { href: URL.createObjectURL(blob), download: 'aeroplane-seed' + state.seed_text +
      (state.game_text === '0' ? '' : '-game' + state.game_text) + '.jsonl' });
    document.body.appendChild(a);
    a.click();
    document.body.removeChild(a);
    say(state.phase === 'over' ? 'Saved: replay it with aeroplane replay --log FILE.jsonl --game ' + state.game_text
      : 'Saved the game so far (the page reads it back; aeroplane replay reads finished games).');
  }

  // A game of a log as the chooser names it: its index, the seats' players, the winner.
  function gameLabel(g) {
    var seats = g.seats.map(function (s) { return NAMES[s.seat] + ' ' + s.player; }).join(', ');
    var end = g.turns === null ? 'not finished' : (g.winner === null ? 'no winner' : NAMES[g.winner] + ' won') +
      ' in ' + g.turns + ' turns';
    return 'Game ' + g.game_text + ': ' + seats + '; ' + end;
  }

  // A log of several games (a run's --log-games log): the person chooses one, then Load.
  function choose(name, text, games) {
    var box = $('chooser');
    var sel = $('game-choice');
    clear(sel);
    games.forEach(function (g) { sel.appendChild(html('option', { value: g.game_text }, gameLabel(g))); });
    $('chooser-text').textContent = name + ' holds ' + games.length + ' games: choose the one to load.';
    box.hidden = false;
    pendingChoice = { name: name, text: text };
    sel.focus();
  }
  function chosen(load) {
    var c = pendingChoice;
    pendingChoice = null;
    $('chooser').hidden = true;
    if (!c) { return; }
    if (!load) { say('Not loaded: the game on the board goes on.'); return; }
    loadGame(c.name, c.text, $('game-choice').value, true);
  }

  function loadGame(name, text, game, several) {
    if (!mayDiscard('Loading ' + name)) { say('Not loaded: the game on the board goes on.'); return; }
    var g0 = ++gen;
    busy = true;
    call('load', { text: text, game: game }, 0).then(function (reply) {
      if (g0 !== gen) { return; }
      busy = false;
      if (!reply.ok) {
        say('The record was not loaded (the game on the board goes on): ' + reply.error, true);
        resync();
        return;
      }
      begin(reply);
      say('Loaded ' + (several ? 'game ' + state.game_text + ' of ' : '') + name + ': ' + state.rolls + ' rolls' +
        (state.game_text === '0' ? '.' : ' (game ' + state.game_text + ' of seed ' + state.seed_text + ': its dice and seats).'));
      botsGo();
    });
  }

  function upload(file) {
    var reader = new FileReader();
    reader.onload = function () {
      var text = String(reader.result);
      call('games', text, 0).then(function (reply) {
        if (!reply.ok) { say('The record was not loaded (the game on the board goes on): ' + reply.error, true); return; }
        var games = JSON.parse(reply.games);
        if (games.length > 1) { choose(file.name, text, games); return; }
        loadGame(file.name, text, games[0].game_text, false);
      });
    };
    reader.onerror = function () { say('The file could not be read.', true); };
    reader.readAsText(file);
  }

  // A game the worker now holds (new, loaded or restored): everything drawn from the start.
  function begin(reply, keepCoach) {
    window.clearTimeout(timer);
    window.clearTimeout(thinkTimer);
    $('thinking').hidden = true;
    paused = false;
    busy = false;
    thinkBySeat = [[], [], [], []];
    document.body.removeAttribute('data-think-ms');
    if (!keepCoach) { coach = {}; }
    board = JSON.parse(reply.board);
    $('cells').innerHTML = board.svg;
    clear($('marks'));
    clear($('preview'));
    clear($('announce'));
    $('status').removeAttribute('data-said');
    redrawAll(reply);
  }

  // --- A new game ---------------------------------------------------------------------------

  function rulesText() {
    var preset = $('rules-preset').value;
    return preset === 'toml' ? $('rules-toml').value : preset;
  }

  // One row per seat: a person, a bot the module offers for these rules and players (the td
  // bots whose net fits them), or another bot typed by name (kind:key=value, as
  // `aeroplane run --bots` names it).
  function seatRows(want) {
    var n = Number($('players').value);
    var seats = { 2: [0, 2], 3: [0, 1, 2], 4: [0, 1, 2, 3] }[n];
    var box = $('seat-choices');
    var old = want || Array.prototype.map.call(box.querySelectorAll('select'), function (s) { return s.value; });
    var oldText = Array.prototype.map.call(box.querySelectorAll('input.bot-name'), function (s) { return s.value; });
    clear(box);
    var bots = JSON.parse(wasm.bots(rulesText(), n));
    seats.forEach(function (seat, k) {
      var row = html('div', { 'class': 'seat-row' });
      row.appendChild(html('label', { 'for': 'seat-' + k }, LETTERS[seat] + ' ' + NAMES[seat]));
      var sel = html('select', { id: 'seat-' + k, 'data-seat': seat });
      sel.appendChild(html('option', { value: 'person' }, 'person'));
      bots.forEach(function (b) { sel.appendChild(html('option', { value: b[0], title: b[1] }, b[0])); });
      sel.appendChild(html('option', { value: 'other', title: 'a bot by name, with parameters: kind:key=value' }, 'other…'));
      var w = old[k] || (k === 0 ? 'person' : 'greedy');
      var known = w === 'person' || w === 'other' || bots.some(function (b) { return b[0] === w; });
      sel.value = known ? w : 'other';
      var text = html('input', { id: 'seat-' + k + '-name', 'class': 'bot-name', type: 'text', size: 22,
        placeholder: 'e.g. mcts:iterations=400', 'aria-label': NAMES[seat] + ': bot name' });
      text.value = known ? (oldText[k] || '') : w;
      text.hidden = sel.value !== 'other';
      sel.addEventListener('change', function () { text.hidden = sel.value !== 'other'; });
      var what = html('span', { 'class': 'bot-what' });
      function describe() {
        var b = bots.filter(function (x) { return x[0] === sel.value; })[0];
        what.textContent = b ? b[1] : '';
      }
      sel.addEventListener('change', describe);
      describe();
      row.appendChild(sel);
      row.appendChild(text);
      row.appendChild(what);
      box.appendChild(row);
    });
  }
  // The form shows the game on the board (after a reload or an upload).
  function formFromState() {
    $('players').value = String(state.seats.length);
    var presets = Array.prototype.map.call($('rules-preset').options, function (o) { return o.value; });
    if (presets.indexOf(state.rules) >= 0) { $('rules-preset').value = state.rules; $('rules-toml-box').hidden = true; }
    seatRows(state.seats.map(function (s) { return s.player; }));
    $('seed').value = state.seed_text;
    checkSeed();
  }

  // The seed box takes digits only, 0 to 2^64 - 1, checked as typed.
  function seedProblem() {
    var v = $('seed').value.trim();
    if (v === '') { return null; }
    if (!/^[0-9]+$/.test(v)) {
      return 'The seed must be a whole number from 0 to ' + MAX_SEED + ', digits only: "' + v.slice(0, 40) + '" is not one.';
    }
    if (BigInt(v) > BigInt(MAX_SEED)) {
      return 'The seed must be at most ' + MAX_SEED + ' (2^64 - 1).';
    }
    return null;
  }
  function checkSeed() {
    var bad = seedProblem();
    $('seed').setAttribute('aria-invalid', bad ? 'true' : 'false');
    $('seed-error').textContent = bad || '';
    return bad;
  }

  function newGame(ev) {
    if (ev) { ev.preventDefault(); }
    var bad = checkSeed();
    if (bad) { say('No new game: ' + bad, true); $('seed').focus(); return; }
    var seats = Array.prototype.map.call($('seat-choices').querySelectorAll('select'), function (s) {
      return s.value === 'other' ? $(s.id + '-name').value.trim() : s.value;
    });
    var config = {
      rules: rulesText(),
      players: Number($('players').value),
      seats: seats,
      seed: $('seed').value.trim() === '' ? '0' : $('seed').value.trim()
    };
    if (ev && !mayDiscard('A new game')) { say('No new game: the game on the board goes on.'); return; }
    var g0 = ++gen;
    busy = true;
    call('new', JSON.stringify(config), 0).then(function (reply) {
      if (g0 !== gen) { return; }
      busy = false;
      if (!reply.ok) {
        say('No new game: ' + reply.error, true);
        resync();
        return;
      }
      begin(reply);
      say('A new game: seed ' + state.seed_text + ', ' + state.rules + ' rules.');
      if (ev) { $('board').focus(); }
      botsGo();
    });
  }

  function restoreSaved(s) {
    var g0 = ++gen;
    busy = true;
    return call('restore', { log: s.log, rolls: s.rolls, rolled: !!s.rolled,
      game: typeof s.game === 'string' ? s.game : undefined }, 0).then(function (reply) {
      if (g0 !== gen) { return false; }
      busy = false;
      if (!reply.ok) { return false; }
      coach = s.coach && typeof s.coach === 'object' ? s.coach : {};
      begin(reply, true);
      formFromState();
      if (state.phase === 'over') {
        say('Your last game is back, as it ended (seed ' + state.seed_text + ', ' + state.rolls + ' rolls): download its record, or start a new game.');
      } else {
        say('Your game in progress is back (seed ' + state.seed_text + ', ' + state.rolls +
          ' rolls played). New game starts another; it asks before discarding this one.');
      }
      announce('Your game is back.');
      botsGo();
      return true;
    });
  }

  function keys(e) {
    var t = e.target;
    if (t && (/^(TEXTAREA|SELECT)$/.test(t.tagName) || (t.tagName === 'INPUT' && t.type !== 'file' && t.type !== 'checkbox'))) {
      if (e.key === 'Escape') { t.blur(); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) { return; }
    if (e.key === 'r' || e.key === 'R' || (e.key === ' ' && !(t && /^(BUTTON|A)$/.test(t.tagName)))) { e.preventDefault(); rollDie(); }
    else if (e.key === 'u' || e.key === 'U') { undo(); }
    else if (e.key === 'c' || e.key === 'C') { setCoach(!coachOn); }
    else if (e.key === 'Escape') { cancelThink(); }
    else if (/^[1-9]$/.test(e.key) && state && personChooses()) {
      var k = Number(e.key) - 1;
      if (k < state.legal.length) { play(k); } else { say('There is no move ' + e.key + ': the moves are 1 to ' + state.legal.length + '.', true); }
    }
  }

  function bytes(b64) {
    var s = atob(b64);
    var out = new Uint8Array(s.length);
    for (var i = 0; i < s.length; i++) { out[i] = s.charCodeAt(i); }
    return out;
  }

  // For tests/web/page_test.js: whether the page waits for a person (or the game is over, or
  // the bots were paused), the state, the rolls played, the coach's ratings.
  window.aeroplanePage = {
    idle: function () {
      return !!state && !busy && (state.phase === 'over' || paused || (state.person_to_move &&
        (state.phase === 'roll' || !!coach[state.rolls + 1])));
    },
    state: function () { return state; },
    rolls: function () { return played.slice(); },
    coach: function () { return coach; },
    record: function () { return record; }
  };

  wasmBytes = bytes(window.AEROPLANE_WASM_BASE64);
  wasm({ module_or_path: wasmBytes }).then(startWorker).then(function (init) {
    if (!init.ok) { throw new Error(init.error); }
    var sel = $('rules-preset');
    JSON.parse(wasm.presets()).forEach(function (p) { sel.appendChild(html('option', { value: p }, p)); });
    sel.appendChild(html('option', { value: 'toml' }, 'custom (TOML)'));
    sel.value = 'classic';
    sel.addEventListener('change', function () { $('rules-toml-box').hidden = sel.value !== 'toml'; seatRows(); });
    $('rules-toml').addEventListener('change', seatRows);
    seatRows();
    $('players').addEventListener('change', function () { seatRows(); });
    $('seed').addEventListener('input', checkSeed);
    $('setup-form').addEventListener('submit', newGame);
    $('roll').addEventListener('click', rollDie);
    $('undo').addEventListener('click', undo);
    $('coach').addEventListener('click', function () { setCoach(!coachOn); });
    $('cancel').addEventListener('click', cancelThink);
    $('continue').addEventListener('click', function () { paused = false; say(''); buttons(); botsGo(); });
    $('download').addEventListener('click', download);
    $('game-load').addEventListener('click', function () { chosen(true); });
    $('game-cancel').addEventListener('click', function () { chosen(false); });
    $('upload').addEventListener('change', function () { if (this.files[0]) { upload(this.files[0]); } this.value = ''; });
    // A menu used leaves the keys to the game: the menu gives the focus back once chosen.
    $('speed').addEventListener('change', function () { this.blur(); });
    document.addEventListener('keydown', keys);
    var coachWas = null;
    try { coachWas = window.localStorage.getItem(COACH_KEY); } catch (e) { /* none */ }
    setCoach(coachWas === 'on');
    drawDie(0);
    var s = saved();
    if (s) {
      return restoreSaved(s).then(function (ok) {
        if (!ok) { say('The saved game could not be read back: a new game instead.', true); newGame(); }
      });
    }
    newGame();
  }).catch(function (e) {
    say('The WebAssembly module could not start: ' + errorText(e), true);
  });
})();
