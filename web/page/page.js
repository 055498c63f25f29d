// The play page: a game against the bots, the engine and the bots running in the page as
// WebAssembly (the aeroplane-web crate; window.wasm_bindgen from `wasm-bindgen --target
// no-modules`, the module inlined as base64 by web/build.sh). The board is the viewer's (its
// SVG comes from src/viewer/svg.rs through the module; the planes use the same markup as the
// viewer's script). No network, no libraries.
(function () {
  'use strict';
  var NAMES = ['red', 'yellow', 'blue', 'green'];
  var SVG = 'http://www.w3.org/2000/svg';
  // wasm-bindgen's no-modules script declares it with `let` (a global binding, not a window property).
  var wasm = wasm_bindgen; // eslint-disable-line no-undef
  var game = null;      // the WebGame
  var board = null;     // {svg, layout, colours, plane_radius}
  var state = null;     // the last state()
  var shown = 0;        // rolls drawn so far
  var busy = false;     // a bot move or an animation is under way
  var timer = null;
  var thinkBySeat = [[], [], [], []];  // each bot decision's time in the module (ms), by seat

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
  // The same markup as src/viewer/svg.rs's planes (and the viewer's script).
  function pile(g, seat, planes, step, mine) {
    var at = spot(seat, planes[0], step);
    var R = board.plane_radius;
    var p = el('g', { 'class': 'pile' + (mine ? ' mine' : ''), 'data-seat': seat, 'data-planes': planes.join(','), 'data-step': step });
    p.appendChild(el('title', {}, NAMES[seat] + ' plane' + (planes.length > 1 ? 's ' : ' ') + planes.join(', ') + ' ' + where(step)));
    for (var i = planes.length - 1; i >= 0; i--) {
      p.appendChild(el('circle', {
        'class': 'plane', cx: round(at.x + 4 * i), cy: round(at.y + 4 * i), r: R,
        fill: board.colours[seat], stroke: '#1d1b18', 'stroke-width': 1.5
      }));
    }
    p.appendChild(el('text', { 'class': 'plane-label', x: at.x, y: at.y, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, String(planes[0])));
    if (planes.length > 1) {
      p.appendChild(el('circle', { 'class': 'badge', cx: at.x + 11, cy: at.y - 11, r: 7, fill: '#fff', stroke: '#1d1b18' }));
      p.appendChild(el('text', { 'class': 'badge-label', x: at.x + 11, y: at.y - 11, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, String(planes.length)));
    }
    p.addEventListener('click', function () { clickPlane(seat, planes, step); });
    g.appendChild(p);
  }
  function drawPlanes(steps, mover) {
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
        pile(g, seat, here, s[p], seat === mover);
      }
    }
  }
  function drawArrow(seat, mv) {
    var g = $('marks');
    clear(g);
    if (!mv) { return; }
    var from = spot(seat, mv.planes[0], mv.from);
    var to = spot(seat, mv.planes[0], mv.to);
    if (from.x === to.x && from.y === to.y) {
      g.appendChild(el('circle', { 'class': 'move', cx: to.x, cy: to.y, r: board.plane_radius + 6, fill: 'none' }));
    } else {
      g.appendChild(el('line', { 'class': 'move', x1: from.x, y1: from.y, x2: to.x, y2: to.y, 'marker-end': 'url(#head)' }));
    }
  }

  // Slides the moved pile from its cell to its new one, then calls done.
  function animate(roll, before, done) {
    var ms = Number($('speed').value);
    var mv = roll.chosen === null ? null : roll.legal[roll.chosen];
    drawArrow(roll.seat, mv);
    if (!mv || ms === 0) { drawPlanes(roll.after, -1); done(); return; }
    drawPlanes(before, -1);
    var moving = null;
    var piles = $('planes').querySelectorAll('.pile[data-seat="' + roll.seat + '"][data-step="' + mv.from + '"]');
    for (var k = 0; k < piles.length; k++) {
      if (piles[k].getAttribute('data-planes').split(',').indexOf(String(mv.planes[0])) >= 0) { moving = piles[k]; }
    }
    var from = spot(roll.seat, mv.planes[0], mv.from);
    var to = spot(roll.seat, mv.planes[0], mv.to);
    var t0 = null;
    function frame(t) {
      if (t0 === null) { t0 = t; }
      var k = Math.min(1, (t - t0) / (ms * 0.6));
      if (moving) { moving.setAttribute('transform', 'translate(' + round((to.x - from.x) * k) + ',' + round((to.y - from.y) * k) + ')'); }
      if (k < 1) { window.requestAnimationFrame(frame); return; }
      drawPlanes(roll.after, -1);
      timer = window.setTimeout(done, ms * 0.4);
    }
    window.requestAnimationFrame(frame);
  }

  // --- The panel ----------------------------------------------------------------------------

  function seatSpan(seat) {
    var s = html('span', { 'class': 'seat' });
    var sw = html('span', { 'class': 'swatch' });
    sw.style.background = board.colours[seat];
    s.appendChild(sw);
    var who = state.seats.filter(function (x) { return x.seat === seat; })[0];
    s.appendChild(document.createTextNode(NAMES[seat] + ' (' + (who ? who.player : '?') + ')'));
    return s;
  }
  function fmtValue(v) { return v === null || v === undefined ? '–' : (Math.round(v * 1000) / 1000).toFixed(3); }
  function stepText(s) { return s < 0 ? 'H' : String(s); }

  function showRoll(roll, ms) {
    var box = $('last');
    clear(box);
    var who = html('p', { 'class': 'who' });
    who.appendChild(document.createTextNode('Roll ' + roll.n + ': '));
    who.appendChild(seatSpan(roll.seat));
    who.appendChild(document.createTextNode(' rolled ' + roll.roll + ': ' + roll.text +
      (ms !== undefined ? ' (thought ' + ms.toFixed(1) + ' ms)' : '')));
    box.appendChild(who);
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
    var li = html('li', {}, NAMES[roll.seat] + ' (' + roll.player + ') ' + roll.roll + ': ' + roll.text);
    $('history').appendChild(li);
  }

  function render() {
    state = JSON.parse(game.state());
    document.body.setAttribute('data-phase', state.phase);
    document.body.setAttribute('data-rolls', String(state.rolls));
    document.body.setAttribute('data-position', state.position);
    var personMoves = state.person_to_move && state.phase === 'choose';
    drawPlanes(state.steps, personMoves ? state.to_move : -1);
    var st = $('status');
    clear(st);
    var p = html('p', { 'class': 'status' });
    if (state.phase === 'over') {
      p.textContent = 'Game over: ' + (state.winner === null ? 'no winner' + (state.unfinished ? ' (stopped by max_turns)' : '')
        : NAMES[state.winner] + ' wins') + ' after ' + state.turns + ' turns. Download the record, undo, or start a new game.';
    } else {
      p.appendChild(document.createTextNode('Turn ' + Math.max(1, state.turns) + ' · '));
      p.appendChild(seatSpan(state.to_move));
      p.appendChild(document.createTextNode(state.phase === 'choose'
        ? ' rolled ' + state.roll + ': choose a move (click a plane or a move below)'
        : state.person_to_move ? ': your roll' : ' (bot) to roll'));
    }
    st.appendChild(p);
    var list = $('legal');
    clear(list);
    if (personMoves) {
      state.legal.forEach(function (mv, k) {
        var li = html('li');
        var b = html('button', { type: 'button', 'data-index': k }, (k + 1) + '. ' + mv.text);
        b.addEventListener('click', function () { play(k); });
        li.appendChild(b);
        list.appendChild(li);
      });
    }
    $('roll').disabled = !(state.person_to_move && state.phase === 'roll') || busy;
    $('undo').disabled = !state.can_undo || busy;
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

  // Draws the rolls played since the last call (animating each), then lets the bots go on.
  function catchUp(ms, then) {
    var rolls = JSON.parse(game.rolls(shown));
    var before = shown === 0 ? null : JSON.parse(game.rolls(shown - 1))[0].after;
    var i = 0;
    busy = true;
    function next() {
      if (i >= rolls.length) { busy = false; render(); if (then) { then(); } return; }
      var r = rolls[i++];
      var from = before || startSteps();
      before = r.after;
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
    if (!state || state.phase === 'over' || state.person_to_move || busy) { return; }
    busy = true;
    timer = window.setTimeout(function () {
      var seat = state.to_move;
      var t0 = performance.now();
      try {
        game.botMove();
      } catch (e) {
        busy = false;
        say('The bot could not move: ' + errorText(e), true);
        render();
        return;
      }
      var ms = performance.now() - t0;
      // A decision (a roll with two or more legal moves): the bot was asked.
      var played = JSON.parse(game.rolls(shown));
      if (played.length && played[played.length - 1].legal.length > 1) {
        thinkBySeat[seat].push(ms);
        document.body.setAttribute('data-think-ms', JSON.stringify(thinkBySeat));
      }
      catchUp(ms, botsGo);
    }, 0);
  }

  // --- A person's actions -------------------------------------------------------------------

  function rollDie() {
    if (busy || !game) { return; }
    if (!(state.person_to_move && state.phase === 'roll')) {
      say(state.phase === 'over' ? 'The game is over.' : state.phase === 'choose'
        ? 'Choose a move for your roll first.' : 'It is not your roll: a bot is playing.', true);
      return;
    }
    try { game.roll(); } catch (e) { say(errorText(e), true); return; }
    say('');
    catchUp(undefined, botsGo);
  }

  function play(k) {
    if (busy || !game) { return; }
    try { game.apply(k); } catch (e) { say(errorText(e), true); render(); return; }
    say('');
    catchUp(undefined, botsGo);
  }

  function clickPlane(seat, planes, step) {
    if (busy || !game) { return; }
    if (state.phase === 'over') { say('The game is over: that plane cannot move.', true); return; }
    if (!state.person_to_move) { say('It is not your turn: ' + NAMES[state.to_move] + ' (a bot) is playing.', true); return; }
    if (seat !== state.to_move) { say('That is a ' + NAMES[seat] + ' plane: you play ' + NAMES[state.to_move] + '.', true); return; }
    if (state.phase === 'roll') { say('Roll the die first.', true); return; }
    var moves = state.legal.filter(function (mv) {
      return mv.from === step && mv.planes.some(function (p) { return planes.indexOf(p) >= 0; });
    });
    if (moves.length === 0) {
      say(NAMES[seat] + ' plane ' + planes.join(',') + ' ' + where(step) + ' has no legal move for a roll of ' + state.roll +
        (step < 0 ? ' (a launch needs ' + 'a launching roll)' : '') + ': choose one of the moves listed.', true);
      return;
    }
    if (moves.length > 1) {
      say('That plane has ' + moves.length + ' moves (fly or stay): choose one in the list.', false);
      return;
    }
    play(moves[0].index);
  }

  function undo() {
    if (busy || !game) { return; }
    window.clearTimeout(timer);
    try { game.undo(); } catch (e) { say(errorText(e), true); return; }
    say('Undone: back to your last decision (the seeded die gives the same roll again).');
    redrawAll();
    botsGo();
  }

  function redrawAll() {
    state = JSON.parse(game.state());
    clear($('history'));
    clear($('last'));
    clear($('marks'));
    var rolls = JSON.parse(game.rolls(0));
    rolls.forEach(function (r) { $('history').appendChild(html('li', {}, NAMES[r.seat] + ' (' + r.player + ') ' + r.roll + ': ' + r.text)); });
    shown = rolls.length;
    if (rolls.length) {
      var r = rolls[rolls.length - 1];
      $('history').removeChild($('history').lastChild);
      showRoll(r);
      drawArrow(r.seat, r.chosen === null ? null : r.legal[r.chosen]);
    }
    render();
  }

  function download() {
    if (!game) { return; }
    var text = game.record();
    var blob = new Blob([text], { type: 'application/x-ndjson' });
    var a = html('a', { href: URL.createObjectURL(blob), download: 'aeroplane-seed' + state.seed + '.jsonl' });
    document.body.appendChild(a);
    a.click();
    document.body.removeChild(a);
    say(state.phase === 'over' ? 'Saved: replay it with aeroplane replay --log FILE.jsonl --game 0'
      : 'Saved the game so far (the page reads it back; aeroplane replay reads finished games).');
  }

  function upload(file) {
    var reader = new FileReader();
    reader.onload = function () {
      var loaded;
      try {
        loaded = wasm.WebGame.fromRecord(String(reader.result));
      } catch (e) {
        say('The record was not loaded (the game on the board goes on): ' + errorText(e), true);
        return;
      }
      window.clearTimeout(timer);
      busy = false;
      if (game) { game.free(); }
      game = loaded;
      thinkBySeat = [[], [], [], []];
      startBoard();
      redrawAll();
      say('Loaded ' + file.name + ': ' + state.rolls + ' rolls.');
      botsGo();
    };
    reader.onerror = function () { say('The file could not be read.', true); };
    reader.readAsText(file);
  }

  // --- A new game ---------------------------------------------------------------------------

  function rulesText() {
    var preset = $('rules-preset').value;
    return preset === 'toml' ? $('rules-toml').value : preset;
  }

  // One row per seat: a person, a bot the module offers for these rules and players (the td
  // bots whose net fits them), or another bot typed by name (kind:key=value, as
  // `aeroplane run --bots` names it).
  function seatRows() {
    var n = Number($('players').value);
    var seats = { 2: [0, 2], 3: [0, 1, 2], 4: [0, 1, 2, 3] }[n];
    var box = $('seat-choices');
    var old = Array.prototype.map.call(box.querySelectorAll('select'), function (s) { return s.value; });
    var oldText = Array.prototype.map.call(box.querySelectorAll('input.bot-name'), function (s) { return s.value; });
    clear(box);
    var bots = JSON.parse(wasm.bots(rulesText(), n));
    seats.forEach(function (seat, k) {
      var row = html('div', { 'class': 'seat-row' });
      row.appendChild(html('label', { 'for': 'seat-' + k }, NAMES[seat]));
      var sel = html('select', { id: 'seat-' + k, 'data-seat': seat });
      sel.appendChild(html('option', { value: 'person' }, 'person'));
      bots.forEach(function (b) { sel.appendChild(html('option', { value: b[0], title: b[1] }, b[0])); });
      sel.appendChild(html('option', { value: 'other', title: 'a bot by name, with parameters: kind:key=value' }, 'other…'));
      var want = old[k] || (k === 0 ? 'person' : 'greedy');
      sel.value = bots.some(function (b) { return b[0] === want; }) || want === 'other' ? want : (k === 0 ? 'person' : 'greedy');
      var text = html('input', { id: 'seat-' + k + '-name', 'class': 'bot-name', type: 'text', size: 22,
        placeholder: 'e.g. mcts:iterations=400', 'aria-label': NAMES[seat] + ': bot name' });
      text.value = oldText[k] || '';
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

  function startBoard() {
    board = JSON.parse(game.board());
    $('cells').innerHTML = board.svg;
    clear($('marks'));
  }

  function newGame(ev) {
    if (ev) { ev.preventDefault(); }
    var seats = Array.prototype.map.call($('seat-choices').querySelectorAll('select'), function (s) {
      return s.value === 'other' ? $(s.id + '-name').value.trim() : s.value;
    });
    var config = {
      rules: rulesText(),
      players: Number($('players').value),
      seats: seats,
      seed: $('seed').value.trim() === '' ? 0 : $('seed').value.trim()
    };
    var fresh;
    try {
      fresh = new wasm.WebGame(JSON.stringify(config));
    } catch (e) {
      say('No new game: ' + errorText(e), true);
      return;
    }
    window.clearTimeout(timer);
    busy = false;
    if (game) { game.free(); }
    game = fresh;
    shown = 0;
    thinkBySeat = [[], [], [], []];
    document.body.removeAttribute('data-think-ms');
    startBoard();
    redrawAll();
    say('A new game: seed ' + state.seed + ', ' + state.rules + ' rules.');
    botsGo();
  }

  function keys(e) {
    if (e.target && /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) { return; }
    if (e.key === 'r' || e.key === 'R' || e.key === ' ') { e.preventDefault(); rollDie(); }
    else if (e.key === 'u' || e.key === 'U') { undo(); }
    else if (/^[1-9]$/.test(e.key) && state && state.phase === 'choose' && state.person_to_move) {
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

  // For tests/web/page_test.js: whether the page waits for a person (or the game is over), the
  // state, the rolls played.
  window.aeroplanePage = {
    idle: function () { return !!state && !busy && (state.phase === 'over' || state.person_to_move); },
    state: function () { return state; },
    rolls: function () { return JSON.parse(game.rolls(0)); }
  };

  wasm({ module_or_path: bytes(window.AEROPLANE_WASM_BASE64) }).then(function () {
    var sel = $('rules-preset');
    JSON.parse(wasm.presets()).forEach(function (p) { sel.appendChild(html('option', { value: p }, p)); });
    sel.appendChild(html('option', { value: 'toml' }, 'custom (TOML)'));
    sel.value = 'classic';
    sel.addEventListener('change', function () { $('rules-toml-box').hidden = sel.value !== 'toml'; seatRows(); });
    $('rules-toml').addEventListener('change', seatRows);
    seatRows();
    $('players').addEventListener('change', seatRows);
    $('setup-form').addEventListener('submit', newGame);
    $('roll').addEventListener('click', rollDie);
    $('undo').addEventListener('click', undo);
    $('download').addEventListener('click', download);
    $('upload').addEventListener('change', function () { if (this.files[0]) { upload(this.files[0]); } this.value = ''; });
    document.addEventListener('keydown', keys);
    newGame();
  }, function (e) {
    say('The WebAssembly module could not start: ' + errorText(e), true);
  });
})();
