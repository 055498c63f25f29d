// The board viewer: steps through the game embedded in #game-data (replay's JSON, the board
// layout and the starting position). State i is the position after roll i (0: the start); the
// panel describes roll i. No network, no libraries.
(function () {
  'use strict';
  var errors = [];
  window.addEventListener('error', function (e) {
    errors.push(String(e.message));
    document.body.setAttribute('data-errors', errors.join(' | '));
  });

  var data = JSON.parse(document.getElementById('game-data').textContent);
  var game = data.game;
  var log = game.log;
  var layout = data.layout;
  var N = log.length;
  var COLOURS = data.colours;
  var NAMES = ['red', 'yellow', 'blue', 'green'];
  var SVG = 'http://www.w3.org/2000/svg';
  var R = data.plane_radius;
  var state = 0;
  var timer = null;

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

  function position(i) { return i === 0 ? data.start : log[i - 1].after; }

  function botOf(seat) {
    var k = data.seats.indexOf(seat);
    return k < 0 ? '?' : game.bots[k];
  }

  function spot(seat, plane, step) {
    return step < 0 ? layout.hangar[seat][plane] : layout.spots[seat][Math.min(step, layout.centre)];
  }

  function where(step) {
    if (step < 0) { return 'in the hangar'; }
    if (step === 0) { return 'on the take-off cell'; }
    if (step === layout.centre) { return 'home'; }
    return 'at step ' + step;
  }

  // The same markup as the page's static first position (src/viewer/svg.rs).
  function pile(g, seat, planes, step) {
    var at = spot(seat, planes[0], step);
    var p = el('g', { 'class': 'pile', 'data-seat': seat, 'data-planes': planes.join(','), 'data-step': step });
    p.appendChild(el('title', {}, NAMES[seat] + ' plane' + (planes.length > 1 ? 's ' : ' ') +
      planes.join(', ') + ' ' + where(step)));
    for (var i = planes.length - 1; i >= 0; i--) {
      p.appendChild(el('circle', {
        'class': 'plane', cx: round(at.x + 4 * i), cy: round(at.y + 4 * i), r: R,
        fill: COLOURS[seat], stroke: '#1d1b18', 'stroke-width': 1.5
      }));
    }
    p.appendChild(el('text', {
      'class': 'plane-label', x: at.x, y: at.y, 'text-anchor': 'middle', 'dominant-baseline': 'central'
    }, String(planes[0])));
    if (planes.length > 1) {
      p.appendChild(el('circle', { 'class': 'badge', cx: at.x + 11, cy: at.y - 11, r: 7, fill: '#fff', stroke: '#1d1b18' }));
      p.appendChild(el('text', {
        'class': 'badge-label', x: at.x + 11, y: at.y - 11, 'text-anchor': 'middle', 'dominant-baseline': 'central'
      }, String(planes.length)));
    }
    g.appendChild(p);
  }

  function round(v) { return Math.round(v * 10) / 10; }

  function drawPlanes(pos) {
    var g = $('planes');
    while (g.firstChild) { g.removeChild(g.firstChild); }
    for (var seat = 0; seat < 4; seat++) {
      var steps = pos.steps[seat];
      if (!steps) { continue; }
      var done = [];
      for (var p = 0; p < steps.length; p++) {
        if (done[p]) { continue; }
        var here = [p];
        if (steps[p] >= 0) {
          for (var q = p + 1; q < steps.length; q++) {
            if (steps[q] === steps[p]) { here.push(q); }
          }
        }
        here.forEach(function (q) { done[q] = true; });
        pile(g, seat, here, steps[p]);
      }
    }
  }

  // The board's element of a plane's place: its hangar slot, or the cell of its step (every
  // cell lists the seats' steps it is in data-at, e.g. "0:46 1:33 2:20 3:7").
  function cellOf(seat, plane, step) {
    var q = step < 0 ? '[data-hangar="' + seat + ':' + plane + '"]'
      : '[data-at~="' + seat + ':' + Math.min(step, layout.centre) + '"]';
    return $('board').querySelector(q);
  }

  // Highlights a move's from and to cells (classes prefix + 'from', prefix + 'to'), and tags each
  // with its step number in layer g (a g.step-tag with data-end and data-step).
  function markCells(g, seat, mv, prefix) {
    [['from', mv.from], ['to', mv.to]].forEach(function (end) {
      var c = cellOf(seat, mv.planes[0], end[1]);
      if (c) { c.classList.add(prefix + end[0]); }
      var at = spot(seat, mv.planes[0], end[1]);
      var label = end[1] < 0 ? 'H' : String(end[1]);
      var tag = el('g', { 'class': 'step-tag tag-' + prefix.replace('-', ''), 'data-end': end[0], 'data-step': end[1] });
      var w = 8 + 7 * label.length;
      tag.appendChild(el('rect', { x: round(at.x - w / 2), y: round(at.y - R - 17), width: w, height: 14, rx: 3 }));
      tag.appendChild(el('text', { x: at.x, y: round(at.y - R - 10), 'text-anchor': 'middle', 'dominant-baseline': 'central' }, label));
      tag.appendChild(el('title', {}, NAMES[seat] + ' ' + end[0] + ' ' + (end[1] < 0 ? 'the hangar' : 'step ' + end[1])));
      g.appendChild(tag);
    });
  }

  function unmarkCells(prefix) {
    ['from', 'to'].forEach(function (end) {
      var on = $('board').querySelectorAll('[data-at].' + prefix + end + ', [data-hangar].' + prefix + end);
      for (var k = 0; k < on.length; k++) { on[k].classList.remove(prefix + end); }
    });
  }

  function arrow(g, seat, mv, cls) {
    var from = spot(seat, mv.planes[0], mv.from);
    var to = spot(seat, mv.planes[0], mv.to);
    if (from.x === to.x && from.y === to.y) {
      g.appendChild(el('circle', { 'class': cls, cx: to.x, cy: to.y, r: R + 6, fill: 'none' }));
      return;
    }
    g.appendChild(el('line', { 'class': cls, x1: from.x, y1: from.y, x2: to.x, y2: to.y, 'marker-end': 'url(#head)' }));
  }

  function drawMarks(i) {
    var g = $('marks');
    while (g.firstChild) { g.removeChild(g.firstChild); }
    unmarkCells('move-');
    if (i === 0) { return; }
    var line = log[i - 1];
    var before = line.before;
    line.captured.forEach(function (c) {
      var at = spot(c[0], c[1], before.steps[c[0]][c[1]]);
      g.appendChild(el('circle', { 'class': 'ghost', cx: at.x, cy: at.y, r: R, stroke: COLOURS[c[0]] }));
    });
    line.penalised.forEach(function (p) {
      var at = spot(line.seat, p, before.steps[line.seat][p]);
      g.appendChild(el('circle', { 'class': 'ghost', cx: at.x, cy: at.y, r: R, stroke: COLOURS[line.seat] }));
    });
    if (line.chosen !== null) {
      markCells(g, line.seat, line.legal[line.chosen], 'move-');
      arrow(g, line.seat, line.legal[line.chosen], 'move');
    }
  }

  function dieFace(n) { return ['', '\u2680', '\u2681', '\u2682', '\u2683', '\u2684', '\u2685'][n] + ' ' + n; }

  function seatSpan(seat) {
    var s = html('span', { 'class': 'seat' });
    var sw = html('span', { 'class': 'swatch' });
    sw.style.background = COLOURS[seat];
    s.appendChild(sw);
    s.appendChild(document.createTextNode('seat ' + seat + ' ' + NAMES[seat] + ' (' + botOf(seat) + ')'));
    return s;
  }

  function effects(mv) {
    var out = [];
    if (mv.launch) { out.push('launch'); }
    if (mv.planes.length > 1) { out.push('stack of ' + mv.planes.length); }
    if (mv.jump) { out.push('jump'); }
    if (mv.flight) { out.push('flight'); }
    if (mv.stay) { out.push('stay'); }
    if (mv.bounce) { out.push('bounce'); }
    if (mv.captures.length) { out.push('capture ' + mv.captures.length); }
    if (mv.finish) { out.push('home'); }
    return out.join(', ');
  }

  function stepText(s) { return s < 0 ? 'H' : String(s); }

  function fmtValue(v) { return v === null ? '–' : (Math.round(v * 1000) / 1000).toFixed(3); }

  function describe(i) {
    var now = $('now');
    while (now.firstChild) { now.removeChild(now.firstChild); }
    var pos = position(i);
    var head = html('p', { 'class': 'status' });
    var turn = i === 0 ? 0 : log[i - 1].turn;
    head.textContent = i === 0 ? 'Start' : 'Roll ' + i + ' of ' + N + ' \u00b7 turn ' + turn;
    now.appendChild(head);
    if (i === 0) {
      now.appendChild(html('p', {}, 'The starting position: every plane in its hangar. Step forward to see the first roll.'));
    } else {
      var line = log[i - 1];
      var who = html('p', { 'class': 'who' });
      who.appendChild(seatSpan(line.seat));
      who.appendChild(document.createTextNode(' rolled '));
      who.appendChild(html('strong', { 'class': 'die' }, dieFace(line.roll)));
      now.appendChild(who);
      if (line.legal.length === 0) {
        now.appendChild(html('p', { 'class': 'none' }, line.action === 'penalty'
          ? 'A third six in a row: not played.' : 'No legal move: a pass.'));
      } else {
        var table = html('table', { 'class': 'moves' });
        var hr = html('tr');
        var heads = ['', 'action', 'move', 'from \u2192 to', 'effect'];
        if (line.values) { heads.push('value'); }
        heads.forEach(function (h) {
          hr.appendChild(html('th', { 'class': h === 'action' || h === 'value' ? 'num' : '' }, h));
        });
        table.appendChild(hr);
        line.legal.forEach(function (mv, k) {
          var tr = html('tr', { 'class': k === line.chosen ? 'chosen' : '' });
          tr.appendChild(html('td', {}, k === line.chosen ? '\u25b6' : ''));
          tr.appendChild(html('td', { 'class': 'num' }, String(mv.action)));
          tr.appendChild(html('td', {}, mv.id));
          tr.appendChild(html('td', {}, stepText(mv.from) + ' \u2192 ' + stepText(mv.to)));
          tr.appendChild(html('td', {}, effects(mv)));
          if (line.values) { tr.appendChild(html('td', { 'class': 'num' }, fmtValue(line.values[k]))); }
          tr.addEventListener('mouseenter', function () { preview(line.seat, mv); });
          tr.addEventListener('mouseleave', function () { preview(null); });
          table.appendChild(tr);
        });
        now.appendChild(html('p', { 'class': 'label' }, line.legal.length === 1
          ? 'One legal move (played without asking the bot):'
          : line.legal.length + ' legal moves; the one chosen is marked' +
            (line.values ? ', with the value the bot gave each:' : ':')));
        now.appendChild(table);
      }
      var ev = html('ul', { 'class': 'events' });
      happened(line).forEach(function (t) { ev.appendChild(html('li', {}, t)); });
      if (ev.firstChild) {
        now.appendChild(html('p', { 'class': 'label' }, 'What happened:'));
        now.appendChild(ev);
      }
    }
    var next = html('p', { 'class': 'next' });
    if (i === N && game.complete) {
      next.textContent = 'Game over: ' + (game.record.winner === null ? 'no winner' + (game.record.unfinished ? ' (stopped by max_turns)' : '')
        : NAMES[game.record.winner] + ' (' + botOf(game.record.winner) + ') wins') + '.';
    } else if (i === N) {
      next.textContent = game.error || 'The log ends here.';
    } else {
      next.appendChild(document.createTextNode('Next to roll: '));
      next.appendChild(seatSpan(pos.to_move));
    }
    now.appendChild(next);
    var players = $('players');
    while (players.firstChild) { players.removeChild(players.firstChild); }
    data.seats.forEach(function (seat) {
      var steps = pos.steps[seat];
      var homeCount = steps.filter(function (s) { return s === layout.centre; }).length;
      var rank = pos.finished.indexOf(seat);
      var li = html('li', {});
      li.appendChild(seatSpan(seat));
      li.appendChild(document.createTextNode(': ' + homeCount + ' of ' + steps.length + ' home' +
        (rank >= 0 ? ', rank ' + (rank + 1) : '') + (seat === pos.to_move && i < N ? ' \u2190 to roll' : '')));
      players.appendChild(li);
    });
  }

  function happened(line) {
    var out = [];
    line.events.forEach(function (e) {
      if (e.indexOf('capture') === 0) {
        var who = line.captured.map(function (c) { return NAMES[c[0]] + ' plane ' + c[1]; });
        out.push('capture: ' + who.join(', ') + ' sent back to ' + (line.captured.length > 1 ? 'their hangars' : 'its hangar'));
      } else if (e === 'penalty') {
        out.push('three sixes in a row: plane' + (line.penalised.length === 1 ? ' ' : 's ') +
          (line.penalised.join(', ') || 'none') + ' back to the hangar');
      } else if (e === 'pass') {
        out.push('pass: no legal move');
      } else if (e === 'finish') {
        out.push('a plane reaches the centre');
      } else if (e.indexOf('home') === 0) {
        out.push('every plane home: ' + e.replace('home ', ''));
      } else if (e === 'roll again') {
        out.push('a six: ' + NAMES[line.seat] + ' rolls again');
      } else if (e === 'jump') {
        out.push('jump: 4 cells on, to the next cell of its colour');
      } else if (e === 'flight') {
        out.push('flight: from step 18 across to step 30');
      } else {
        out.push(e);
      }
    });
    return out;
  }

  function preview(seat, mv) {
    var g = $('preview');
    while (g.firstChild) { g.removeChild(g.firstChild); }
    unmarkCells('option-');
    if (seat !== null) {
      markCells(g, seat, mv, 'option-');
      arrow(g, seat, mv, 'option');
    }
  }

  function turnStart(t) {
    for (var k = 0; k < N; k++) {
      if (log[k].turn >= t) { return k; }
    }
    return N;
  }

  function lastTurn() { return N === 0 ? 0 : log[N - 1].turn; }

  function show(i, keepHash) {
    state = Math.max(0, Math.min(N, i));
    drawPlanes(position(state));
    drawMarks(state);
    preview(null);
    describe(state);
    $('scrub').value = state;
    $('where').textContent = 'roll ' + state + ' / ' + N;
    if (document.activeElement !== $('turn-input')) {
      $('turn-input').value = Math.max(1, state === 0 ? 1 : log[state - 1].turn);
    }
    if (!keepHash && window.history && history.replaceState) {
      history.replaceState(null, '', '#step=' + state);
    }
  }

  function go(hash) {
    var m = /^#(step|turn)=(\d+)$/.exec(hash || '');
    if (!m) { return false; }
    var n = parseInt(m[2], 10);
    show(m[1] === 'step' ? n : turnStart(Math.max(1, n)), true);
    return true;
  }

  function play() {
    if (timer) {
      clearInterval(timer);
      timer = null;
      $('play').textContent = 'Play';
      return;
    }
    if (state >= N) { show(0); }
    $('play').textContent = 'Pause';
    timer = setInterval(function () {
      if (state >= N) { play(); return; }
      show(state + 1);
    }, 1000 / parseFloat($('speed').value));
  }

  function stepTurn(dir) {
    var t = state === 0 ? 0 : log[state - 1].turn;
    if (dir > 0) {
      show(turnStart(t + 1));
    } else {
      var at = turnStart(t);
      show(at < state ? at : turnStart(Math.max(1, t - 1)));
    }
  }

  // Every position drawn, as the board shows it: for tests (#dump).
  function dump() {
    var out = [];
    for (var i = 0; i <= N; i++) {
      show(i, true);
      var piles = [];
      var nodes = $('planes').querySelectorAll('g.pile');
      for (var k = 0; k < nodes.length; k++) {
        var top = nodes[k].querySelectorAll('circle.plane');
        top = top[top.length - 1];
        piles.push([+nodes[k].getAttribute('data-seat'), nodes[k].getAttribute('data-planes').split(',').map(Number),
          +nodes[k].getAttribute('data-step'), +top.getAttribute('cx'), +top.getAttribute('cy')]);
      }
      out.push(piles);
    }
    var s = document.createElement('script');
    s.type = 'application/json';
    s.id = 'drawn';
    s.textContent = JSON.stringify(out);
    document.body.appendChild(s);
  }

  $('controls').hidden = false;
  $('scrub').max = N;
  $('turn-input').max = Math.max(1, lastTurn());
  $('first').addEventListener('click', function () { show(0); });
  $('prev-turn').addEventListener('click', function () { stepTurn(-1); });
  $('prev').addEventListener('click', function () { show(state - 1); });
  $('next').addEventListener('click', function () { show(state + 1); });
  $('next-turn').addEventListener('click', function () { stepTurn(1); });
  $('last').addEventListener('click', function () { show(N); });
  $('play').addEventListener('click', play);
  $('speed').addEventListener('change', function () { if (timer) { play(); play(); } });
  $('scrub').addEventListener('input', function () { show(parseInt($('scrub').value, 10)); });
  $('turn-form').addEventListener('submit', function (e) {
    e.preventDefault();
    show(turnStart(Math.max(1, parseInt($('turn-input').value, 10) || 1)));
  });
  document.addEventListener('keydown', function (e) {
    if (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT')) { return; }
    var keys = {
      ArrowRight: function () { show(state + 1); },
      ArrowLeft: function () { show(state - 1); },
      ArrowDown: function () { stepTurn(1); },
      ArrowUp: function () { stepTurn(-1); },
      PageDown: function () { stepTurn(1); },
      PageUp: function () { stepTurn(-1); },
      Home: function () { show(0); },
      End: function () { show(N); },
      ' ': play
    };
    var f = keys[e.key];
    if (f && !e.altKey && !e.ctrlKey && !e.metaKey) {
      e.preventDefault();
      if (e.shiftKey && (e.key === 'ArrowRight' || e.key === 'ArrowLeft')) {
        stepTurn(e.key === 'ArrowRight' ? 1 : -1);
      } else {
        f();
      }
    }
  });
  window.addEventListener('hashchange', function () { go(location.hash); });
  if (location.hash === '#dump') {
    dump();
    show(0, true);
  } else if (!go(location.hash)) {
    show(0, true);
  }
  document.body.setAttribute('data-ready', '1');
})();
