// The WebAssembly module under Node.js (`wasm-bindgen --target nodejs`, no npm packages):
// seeded bot games played through the module's API equal the CLI's games of the same seed.
// For each lineup and seed, the module's record must be byte for byte the decision log
// `aeroplane run --games 1 --log-games g.jsonl` writes (the moves, and every search or td
// bot's value of every move to the last bit), and `aeroplane replay --log` of the module's
// record must print the rolls and moves of `aeroplane replay --seed S --game 0`. Every bot the
// page offers plays: greedy, random, the search bots (expectimax, montecarlo, mcts) by their
// profiles and with their budgets as parameters, and td with each preset's shipped nets at
// ply 0, 1 and 2.
// The API's refusals (an illegal move index, a bad configuration, a corrupted record) must
// leave the game as it was.
//
//     node tests/web/node_test.js target/web/node target/debug/aeroplane WORK_DIR
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const [moduleDir, bin, work] = process.argv.slice(2);
if (!moduleDir || !bin || !work) {
  console.error('usage: node tests/web/node_test.js MODULE_DIR AEROPLANE_BINARY WORK_DIR');
  process.exit(2);
}
const web = require(path.resolve(moduleDir, 'aeroplane_web.js'));
fs.mkdirSync(work, { recursive: true });

function cli(args) {
  return execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// Each roll of a `replay --json` as [seat, roll, move notation or null].
function moves(replayJson) {
  const r = JSON.parse(replayJson);
  return r.log.map((l) => [l.seat, l.roll, l.chosen === null ? null : l.legal[l.chosen].id]);
}

function playOut(game) {
  let n = 0;
  while (JSON.parse(game.state()).phase !== 'over') {
    game.botMove();
    n += 1;
    assert(n < 100000, 'the game ends');
  }
  return n;
}

const lineups = [
  { rules: 'classic', bots: ['greedy', 'random'], seeds: [1, 7, 12345] },
  { rules: 'classic', bots: ['random', 'greedy', 'random', 'greedy'], seeds: [3, 99] },
  { rules: 'chinese', bots: ['greedy', 'random', 'random'], seeds: [5] },
  { rules: 'appfreegame', bots: ['random', 'random', 'greedy', 'greedy'], seeds: [2026] },
  // The search bots and the learned player.
  { rules: 'classic', bots: ['td-classic-4p', 'expectimax', 'mcts', 'montecarlo'], seeds: [1] },
  { rules: 'classic', bots: ['td-classic-2p:ply=1', 'expectimax:depth=2'], seeds: [7, 8] },
  { rules: 'classic', bots: ['td-classic-2p:ply=2', 'td-classic-2p'], seeds: [4] },
  { rules: 'chinese', bots: ['td-chinese-2p', 'mcts-rollout'], seeds: [5] },
  { rules: 'chinese', bots: ['td-chinese-4p:ply=1', 'expectimax-deep', 'mcts:iterations=300', 'greedy'], seeds: [11] },
  { rules: 'appfreegame', bots: ['td-appfreegame-4p', 'montecarlo:rollouts=8', 'random', 'td-appfreegame-4p:ply=1'], seeds: [2026] },
  { rules: 'appfreegame', bots: ['mcts', 'td-appfreegame-2p:ply=1'], seeds: [3] },
  { rules: 'chinese', bots: ['mcts:iterations=200', 'expectimax', 'montecarlo'], seeds: [6] },
];
let games = 0;
for (const l of lineups) {
  for (const seed of l.seeds) {
    const what = `${l.rules} ${l.bots.join(',')} seed ${seed}`;
    const game = new web.WebGame(JSON.stringify({ rules: l.rules, players: l.bots.length, seats: l.bots, seed }));
    const rolls = playOut(game);
    const record = game.record();
    const dir = path.join(work, `run-${games}`);
    fs.rmSync(dir, { recursive: true, force: true });
    cli(['run', '--rules', l.rules, '--bots', l.bots.join(','), '--games', '1', '--seed', String(seed),
      '--out', dir, '--log-games', 'g.jsonl', '--threads', '1']);
    const want = fs.readFileSync(path.join(dir, 'g.jsonl'), 'utf8');
    assert.strictEqual(record, want, `${what}: the module's record is the CLI's decision log`);
    if (l.bots.some((b) => !/^(greedy|random)$/.test(b))) {
      assert(/,\[-?[0-9.e-]+,/.test(record), `${what}: the record holds the bots' move values`);
    }

    const file = path.join(work, `page-${games}.jsonl`);
    fs.writeFileSync(file, record);
    const fromRecord = moves(cli(['replay', '--log', file, '--game', '0', '--json']));
    const fromSeed = moves(cli(['replay', '--rules', l.rules, '--bots', l.bots.join(','), '--seed', String(seed),
      '--game', '0', '--json']));
    assert.deepStrictEqual(fromRecord, fromSeed, `${what}: replay --log of the record is the seed's game`);
    const pageRolls = JSON.parse(game.rolls(0)).map((r) => [r.seat, r.roll, r.chosen === null ? null : r.legal[r.chosen].notation]);
    assert.deepStrictEqual(pageRolls, fromSeed, `${what}: the module's rolls are the seed's game`);
    assert.strictEqual(pageRolls.length, rolls);

    // The record read back is the same game.
    const back = web.WebGame.fromRecord(record);
    assert.strictEqual(back.record(), record, `${what}: the record reads back`);
    assert.strictEqual(back.state(), game.state());
    games += 1;
  }
}

// The bots offered: per rules and players, the td bots whose shipped net fits.
{
  const names = (rules, n) => JSON.parse(web.bots(rules, n)).map((b) => b[0]);
  for (const rules of ['classic', 'chinese', 'appfreegame']) {
    for (const n of [2, 4]) {
      const net = `td-${rules}-${n}p`;
      assert.deepStrictEqual(names(rules, n).filter((b) => b.startsWith('td-')), [net, `${net}:ply=1`, `${net}:ply=2`]);
    }
    assert.deepStrictEqual(names(rules, 3).filter((b) => b.startsWith('td-')), [], 'no net for 3 players');
  }
  assert.deepStrictEqual(names('base = "chinese"\nplanes = 2', 2).filter((b) => b.startsWith('td-')),
    ['td-chinese-2planes', 'td-chinese-2planes:ply=1', 'td-chinese-2planes:ply=2']);
  for (const b of ['greedy', 'random', 'expectimax', 'expectimax-deep', 'montecarlo', 'mcts', 'mcts-rollout']) {
    assert(names('classic', 4).includes(b), b);
  }
  assert.deepStrictEqual(names('planes = 9', 2).filter((b) => b.startsWith('td-')), [], 'refused rules offer no td');
  // A net that does not fit the game, a bad parameter: the game is refused, saying why.
  const start = (seats, rules = 'classic') => new web.WebGame(JSON.stringify({ rules, players: seats.length, seats, seed: 1 }));
  assert.throws(() => start(['person', 'td-classic-4p']), /seat 1 \(blue\): bot `td-classic-4p`: the net is for 4 players, the game has 2/);
  assert.throws(() => start(['person', 'td-classic-2p'], 'chinese'), /the net was trained on other rules .*any_rules=true/);
  assert.throws(() => start(['person', 'mcts:iterations=0']), /bad value `0` for parameter `iterations`: allowed is an integer from 1/);
  assert.throws(() => start(['person', 'td:net=x.safetensors']), /the page has no net file `x.safetensors`/);
  start(['person', 'td-classic-2p:any_rules=true'], 'chinese');
}

// A person's game: illegal indexes refused, the state unchanged; undo; the record replays.
{
  const g = new web.WebGame(JSON.stringify({ rules: 'classic', players: 2, seats: ['person', 'greedy'], seed: 4 }));
  let refused = 0;
  let undone = false;
  for (let steps = 0; JSON.parse(g.state()).phase !== 'over'; steps++) {
    const s = JSON.parse(g.state());
    if (!s.person_to_move) {
      assert.throws(() => g.roll(), /a bot .* plays it/);
      g.botMove();
    } else if (s.phase === 'roll') {
      assert.throws(() => g.apply(0), /must roll the die first/);
      g.roll();
    } else {
      const before = g.state() + g.record();
      assert.throws(() => g.apply(s.legal.length), /not a legal move for roll .*the legal moves are/);
      assert.throws(() => g.botMove(), /must choose a move first/);
      assert.strictEqual(g.state() + g.record(), before, 'a refused move changes nothing');
      refused += 1;
      if (!undone && refused === 5) {
        g.apply(0);
        g.undo();
        assert.strictEqual(g.state() + g.record(), before, 'undo comes back to the decision');
        undone = true;
      }
      g.apply(s.legal.length - 1);
    }
  }
  assert(refused >= 5 && undone);
  const file = path.join(work, 'person.jsonl');
  fs.writeFileSync(file, g.record());
  const replayed = moves(cli(['replay', '--log', file, '--game', '0', '--json']));
  const played = JSON.parse(g.rolls(0)).map((r) => [r.seat, r.roll, r.chosen === null ? null : r.legal[r.chosen].notation]);
  assert.deepStrictEqual(replayed, played, "replay --log of a person's game is the game played");
  cli(['replay', '--log', file, '--check']);

  // A corrupted record is refused with the line at fault; a configuration the core refuses
  // names what is wrong.
  const lines = g.record().split('\n');
  const damaged = [lines[0], lines[1].replace(/^\[0,0,0,(\d)/, (m, r) => `[0,0,0,${r === '6' ? 5 : 6}`)].concat(lines.slice(2)).join('\n');
  assert.throws(() => web.WebGame.fromRecord(damaged), /^Error: line 2: /);
  assert.throws(() => web.WebGame.fromRecord('{"format":"x"}\n'), /not an aeroplane game record/);
  assert.throws(() => web.WebGame.fromRecord(lines.slice(0, 5).join('\n').slice(0, -3)), /line 5: not JSON/);
  assert.throws(() => new web.WebGame(JSON.stringify({ rules: 'base = "classic"\nhome_lane_cells = 250', players: 2, seats: ['person', 'greedy'], seed: 1 })),
    /the rules are refused: .*home_lane_cells/);
}

// A run's log of several games, seats rotated: the module lists them, and game N read back is
// the run's game N (its deal's dice, its bots' seeds, the rotated lineup), line for line; its
// record replays as game N.
{
  const dir = path.join(work, 'rotated');
  fs.rmSync(dir, { recursive: true, force: true });
  cli(['run', '--rules', 'classic', '--bots', 'random,greedy,mcts:iterations=20', '--games', '2', '--rotate-seats', '--seed', '9',
    '--out', dir, '--log-games', 'g.jsonl', '--threads', '1']);
  const text = fs.readFileSync(path.join(dir, 'g.jsonl'), 'utf8');
  const listed = JSON.parse(web.games(text));
  assert.deepStrictEqual(listed.map((g) => [g.game, g.rotation]), [[0, 0], [1, 1], [2, 2], [3, 0], [4, 1], [5, 2]]);
  assert.throws(() => web.WebGame.fromRecord(text), /the log holds 6 games \(0, 1, 2, 3, 4, 5\): choose one/);
  assert.throws(() => web.WebGame.fromRecord(text, 'x'), /the game must be a whole number/);
  for (const g of listed) {
    const lines = text.split('\n').filter((l) => l.startsWith(`[${g.game},`) || l.startsWith(`{"game":${g.game},`)).join('\n') + '\n';
    const back = web.WebGame.fromRecord(text, g.game_text);
    const record = back.record();
    assert.strictEqual(record.slice(record.indexOf('\n') + 1), lines, `game ${g.game}: the run's lines`);
    assert.strictEqual(JSON.parse(back.state()).game, g.game);
    const file = path.join(work, `rotated-${g.game}.jsonl`);
    fs.writeFileSync(file, record);
    assert.deepStrictEqual(moves(cli(['replay', '--log', file, '--game', g.game_text, '--json'])),
      moves(cli(['replay', '--manifest', path.join(dir, 'run.json'), '--game', g.game_text, '--json'])), `game ${g.game} replays as the run's`);
    back.free();
  }
}
console.log(`node test: ${games} seeded bot games equal the CLI's records; a person's game replays; game N of a rotated run's log`);
