// The WebAssembly module under Node.js (`wasm-bindgen --target nodejs`, no npm packages):
// seeded bot games played through the module's API equal the CLI's games of the same seed.
// For each lineup and seed, the module's record must be byte for byte the decision log
// `aeroplane run --games 1 --log-games g.jsonl` writes, and `aeroplane replay --log` of the
// module's record must print the rolls and moves of `aeroplane replay --seed S --game 0`.
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
console.log(`node test: ${games} seeded bot games equal the CLI's records; a person's game replays`);
