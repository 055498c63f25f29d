// The play page as a player meets it, in headless Chromium (puppeteer-core, the system's
// browser): on a phone (390x844, 360x640: no sideways scroll, the board and the controls in
// the screen, touch targets of 44 px) and a desktop, at the start, mid-game with the coach on
// and at the end (screenshots, each disc checked for its seat's colour by check_png.py, and
// layout measures); the coach (the strongest bot's value of each move as the module gives it,
// the best marked, the cost of a move in millipoints and the game's total, the hovered move on
// the board, only movable planes highlighted, a drawn die); a reload mid-game restoring the
// same position and history; a new game asking before discarding one; a long bot think shown
// and cancelled; keys after a menu and the seed box; a seed above 2^53 kept exactly and `1e3`
// refused at once; a run's 3-game log uploaded and game 2 chosen; planes and moves reachable by
// keyboard and named, the live region; a bot-only game, started while another game's move
// was sliding, equal to `aeroplane run`'s record byte for byte; no console message.
//
//     node tests/web/play_test.js target/web/aeroplane.html target/debug/aeroplane WORK_DIR
'use strict';
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const puppeteer = require('puppeteer-core');

const [pagePath, bin, work] = process.argv.slice(2);
fs.mkdirSync(work, { recursive: true });
const shots = [];
const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };
const SMALL = { width: 360, height: 640, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };
const DESKTOP = { width: 1280, height: 900 };

async function main() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'aeroplane-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--user-data-dir=${profile}`],
  });
  const messages = [];
  const dialogs = [];
  let answer = true;
  try {
    const page = await browser.newPage();
    page.on('console', (m) => messages.push(`console ${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => messages.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => messages.push(`request failed: ${r.url()}`));
    page.on('dialog', async (d) => { dialogs.push(d.message()); if (answer) { await d.accept(); } else { await d.dismiss(); } });
    await page.setViewport(PHONE);
    await page.goto('file://' + path.resolve(pagePath));
    await page.evaluate(() => window.localStorage.clear());
    await page.reload();
    const idle = () => page.waitForFunction(() => window.aeroplanePage && window.aeroplanePage.idle(), { timeout: 120000 });
    await idle();
    const st = () => page.evaluate(() => window.aeroplanePage.state());
    const message = () => page.$eval('#message', (e) => e.className + ': ' + e.textContent);

    async function piles() {
      return page.$$eval('#planes .pile', (gs) => gs.map((g) => {
        const discs = g.querySelectorAll('circle.plane');
        const r = discs[discs.length - 1].getBoundingClientRect();
        return { seat: Number(g.dataset.seat), planes: g.dataset.planes.split(',').map(Number), step: Number(g.dataset.step),
          x: r.left + r.width / 2, y: r.top + r.height / 2, r: r.width / 2, mine: g.classList.contains('mine'),
          label: g.getAttribute('aria-label'), tab: g.getAttribute('tabindex'), text: g.querySelector('text.plane-label').textContent };
      }));
    }
    // The layout: no sideways scroll, the board and every control inside the screen's width,
    // on a phone every button, menu and move at least 44 px high and wide.
    async function layout(where, phone) {
      const m = await page.evaluate(() => {
        const box = (e) => { const r = e.getBoundingClientRect(); return { id: e.id || e.textContent.trim().slice(0, 20), l: r.left, r: r.right, w: r.width, h: r.height }; };
        const visible = (e) => e.getClientRects().length > 0;
        const targets = Array.from(document.querySelectorAll('#controls button, #controls select, #legal button, #files button, #thinking button, #new-game, #setup-form select'))
          .filter(visible).map(box);
        return { scroll: document.documentElement.scrollWidth, inner: window.innerWidth, board: box(document.getElementById('board')), targets };
      });
      assert(m.scroll <= m.inner, `${where}: no sideways scroll (${m.scroll} > ${m.inner})`);
      assert(m.board.l >= 0 && m.board.r <= m.inner && m.board.w >= Math.min(640, m.inner - 40), `${where}: the board fills the width: ${JSON.stringify(m.board)}`);
      for (const t of m.targets) {
        assert(t.l >= 0 && t.r <= m.inner, `${where}: ${t.id} inside the screen: ${JSON.stringify(t)}`);
        if (phone) { assert(t.h >= 44 && t.w >= 44, `${where}: ${t.id} is a touch target of 44 px: ${JSON.stringify(t)}`); }
      }
      return m;
    }
    async function shot(name, view) {
      await page.setViewport(view);
      await idle();
      await page.evaluate(() => window.scrollTo(0, 0));
      const drawn = await piles();
      const s = await st();
      const steps = [[], [], [], []];
      for (const p of drawn) { for (const q of p.planes) { steps[p.seat][q] = p.step; } }
      assert.deepStrictEqual(steps, s.steps, `${name}: the planes drawn are the engine's position`);
      const m = await layout(name, view.isMobile);
      const file = path.join(work, `play-${name}.png`);
      await page.screenshot({ path: file });
      const discs = path.join(work, `play-${name}.json`);
      fs.writeFileSync(discs, JSON.stringify(drawn.filter((d) => d.y - d.r >= 0 && d.y + d.r < view.height)));
      execFileSync('python3', [path.join(__dirname, 'check_png.py'), file, discs], { stdio: 'inherit' });
      shots.push(file);
      return m;
    }
    async function startGame(seats, seed, speed) {
      await page.select('#players', String(seats.length));
      for (let k = 0; k < seats.length; k++) {
        const known = await page.$$eval(`#seat-${k} option`, (os, b) => os.some((o) => o.value === b), seats[k]);
        if (known) { await page.select(`#seat-${k}`, seats[k]); } else {
          await page.select(`#seat-${k}`, 'other');
          await page.$eval(`#seat-${k}-name`, (e, b) => { e.value = b; }, seats[k]);
        }
      }
      await page.$eval('#seed', (e, v) => { e.value = v; }, String(seed));
      await page.select('#speed', String(speed));
      await page.click('#new-game');
    }

    // The seed box: `1e3` refused as typed, saying what a seed is; a seed above 2^53 exact.
    await page.click('#seed', { clickCount: 3 });
    await page.keyboard.type('1e3');
    assert.match(await page.$eval('#seed-error', (e) => e.textContent), /The seed must be a whole number from 0 to 18446744073709551615, digits only: "1e3"/);
    assert.strictEqual(await page.$eval('#seed', (e) => e.getAttribute('aria-invalid')), 'true');
    const before = (await st()).position;
    await page.click('#new-game');
    assert.match(await message(), /^error: No new game: The seed must be a whole number/);
    assert.strictEqual((await st()).position, before);
    await startGame(['person', 'td-classic-2p'], '18446744073709551615', 0);
    await idle();
    assert.strictEqual((await st()).seed_text, '18446744073709551615');
    assert.match(await message(), /seed 18446744073709551615, classic rules/);

    // Keys after the seed box (Enter starts the game) and after a menu: R rolls.
    await page.click('#seed', { clickCount: 3 });
    await page.keyboard.type('7');
    await page.keyboard.press('Enter');
    await idle();
    assert.strictEqual((await st()).seed_text, '7');
    await page.select('#speed', '0');
    await page.keyboard.press('r');
    await idle();
    assert((await st()).rolls >= 1, 'R rolled after the menu was used');

    // A person (red) against td-classic-2p: the start on a phone, a small phone and a desktop.
    await startGame(['person', 'td-classic-2p'], 3, 0);
    await idle();
    // The game left had a roll played: the page asked (and was told yes).
    assert.strictEqual(dialogs.length, 1);
    assert.match(dialogs[0], /^A new game discards the game in progress \(seed 7, \d+ rolls played\)/);
    dialogs.length = 0;
    await shot('phone-start', PHONE);
    await shot('small-start', SMALL);
    await shot('desktop-start', DESKTOP);
    assert.strictEqual(await page.$eval('#die', (e) => e.getAttribute('data-pips')), '0');
    assert.match(await page.$eval('#announce', (e) => e.textContent), /Your roll, red\./);
    // Seats marked by their letters as well as colours.
    const labels = (await piles()).map((p) => p.text);
    assert(labels.includes('R0') && labels.includes('B0'), labels.join(' '));

    // Play on to a decision whose coach values differ; on the way every person decision is
    // rated by the coach (td-classic-2p:ply=2) and the moves are reachable by Tab.
    await page.setViewport(PHONE);
    await idle();
    let s;
    let costed = 0;
    let tabbed = false;
    for (let guard = 0; ; guard++) {
      assert(guard < 3000, 'a decision with different values comes');
      s = await st();
      assert.notStrictEqual(s.phase, 'over');
      if (s.phase === 'roll') { await page.keyboard.press('r'); await idle(); continue; }
      const c = (await page.evaluate(() => window.aeroplanePage.coach()))[s.rolls + 1];
      assert(c && c.values.length === s.legal.length, 'the coach rated every legal move');
      const drawn = await piles();
      // Only the planes that can move are highlighted, each a button named by its move.
      for (const p of drawn) {
        const can = p.seat === s.to_move && s.legal.some((m) => m.from === p.step && m.planes.some((q) => p.planes.includes(q)));
        assert.strictEqual(p.mine, can, `highlighted iff movable: ${JSON.stringify(p)}`);
        assert.strictEqual(p.tab, can ? '0' : null);
        assert.match(p.label, can ? /^red plane.*: (play|\d+ moves)/ : /^(red|blue) planes? /);
      }
      if (!tabbed) {
        // Tab from the board reaches the first movable plane, then Enter plays it.
        await page.$eval('#board', (e) => e.focus());
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => document.activeElement.getAttribute('data-planes') !== null &&
          document.activeElement.classList.contains('mine'));
        assert(focused, 'Tab reaches a movable plane');
        const one = drawn.find((p) => p.mine && s.legal.filter((m) => m.from === p.step && m.planes.some((q) => p.planes.includes(q))).length === 1);
        if (one) {
          const first = drawn.find((p) => p.mine);
          if (first === one) {
            await page.keyboard.press('Enter');
            await idle();
            tabbed = true;
            assert((await st()).rolls > s.rolls, 'Enter on a focused plane played it');
            continue;
          }
        }
      }
      const vals = c.values;
      const differ = vals.some((v) => v !== vals[0]);
      if (differ && s.legal.length >= 3 && costed >= 1) { break; }
      const k = s.legal.length - 1;
      await page.keyboard.press(String(k + 1));
      await idle();
      if (vals[k] !== null && vals[c.best] !== null) { costed += 1; }
    }
    assert(tabbed, 'a plane was played from the keyboard');

    // The coach, hidden until asked: values, the best marked, as the module rates them.
    assert.strictEqual(await page.$eval('.coach-value', (e) => getComputedStyle(e).display), 'none');
    await page.click('#coach');
    assert.strictEqual(await page.$eval('#coach', (e) => e.getAttribute('aria-pressed')), 'true');
    const c = (await page.evaluate(() => window.aeroplanePage.coach()))[s.rolls + 1];
    const shownValues = await page.$$eval('#legal .coach-value', (es) => es.map((e) => e.textContent));
    assert.deepStrictEqual(shownValues, c.values.map((v, k) => (k === c.best ? '★ best ' : '') + (Math.round(v * 1000) / 1000).toFixed(3)));
    assert.strictEqual(await page.$eval('#legal button.best', (b) => Number(b.dataset.index)), c.best);
    assert(c.values.every((v) => v <= c.values[c.best]), 'the best is the highest value');
    assert.strictEqual(c.bot, 'td-classic-2p:ply=2');
    // The hovered move drawn on the board: its cells tagged with its steps and an arrow.
    const k = c.best === 0 ? 1 : 0;
    await page.hover(`#legal button[data-index="${k}"]`);
    const tags = await page.$$eval('#preview .step-tag', (ts) => ts.map((t) => [t.dataset.end, Number(t.dataset.step)]));
    assert.deepStrictEqual(tags, [['from', s.legal[k].from], ['to', s.legal[k].to]]);
    assert.strictEqual(await page.$$eval('#preview .option', (es) => es.length), 1);
    // The die shows the roll, drawn.
    assert.strictEqual(await page.$eval('#die', (e) => e.getAttribute('data-pips')), String(s.roll));
    assert.strictEqual(await page.$eval('#die', (e) => e.getAttribute('aria-label')), `the die shows ${s.roll} (red)`);
    await shot('phone-coach', PHONE);
    await shot('desktop-coach', DESKTOP);
    // The coach stays on across the reload a change of screen makes; its values are shown.
    assert.strictEqual(await page.$eval('#coach', (e) => e.getAttribute('aria-pressed')), 'true');
    assert.strictEqual(await page.$$eval('#legal .coach-value', (es) => es.filter((e) => getComputedStyle(e).display !== 'none').length), s.legal.length);
    await page.setViewport(PHONE);
    await idle();

    // A move that is not the best: its cost in millipoints as grade counts it (best equity
    // minus the move's), and the game's running total.
    await page.click(`#legal button[data-index="${k}"]`);
    await page.waitForFunction(() => document.getElementById('cost') !== null || window.aeroplanePage.idle());
    await idle();
    const coached = await page.evaluate(() => window.aeroplanePage.coach());
    const mine = coached[s.rolls + 1];
    assert.strictEqual(mine.chosen, k);
    const mp = ((c.values[c.best] - c.values[k]) * 1000).toFixed(1);
    let total = 0;
    let n = 0;
    for (const x of Object.values(coached)) { if (x.cost !== undefined) { total += x.cost; n += 1; } }
    const rollsNow = await page.evaluate(() => window.aeroplanePage.rolls());
    const myRoll = rollsNow.find((r) => r.n === s.rolls + 1);
    assert(myRoll && myRoll.chosen === k, 'the move played');
    // The cost line is on the panel for the person's roll (or the last roll shown after it).
    const costLine = `Your move cost ${mp} mp`;
    const histShown = await page.evaluate(() => document.getElementById('last').textContent);
    if (rollsNow[rollsNow.length - 1].n === myRoll.n) {
      assert(histShown.includes(costLine), histShown);
      assert(histShown.includes(`Game total: ${(total * 1000).toFixed(1)} mp over ${n} decisions`), histShown);
    }
    assert(n >= 2, `costs counted: ${n}`);

    // A reload mid-game: the same position, the same rolls, the same coach's record.
    await idle();
    const mid = await st();
    const midRolls = await page.evaluate(() => window.aeroplanePage.rolls());
    const midRecord = await page.evaluate(() => window.aeroplanePage.record());
    assert(mid.phase !== 'over' && mid.rolls > 10);
    await page.reload();
    await idle();
    const back = await st();
    assert.strictEqual(back.position, mid.position, 'the reload restores the position');
    assert.strictEqual(back.phase, mid.phase);
    assert.deepStrictEqual(back.legal, mid.legal);
    assert.deepStrictEqual(await page.evaluate(() => window.aeroplanePage.rolls()), midRolls, 'the reload restores the history');
    assert.strictEqual(await page.evaluate(() => window.aeroplanePage.record()), midRecord);
    assert.strictEqual(await page.$$eval('#history li', (l) => l.length), midRolls.length);
    assert.match(await message(), /Your game in progress is back \(seed 3, \d+ rolls played\)/);
    assert.strictEqual(await page.$eval('#seed', (e) => e.value), '3');
    assert.strictEqual(await page.$eval('#seat-1', (e) => e.value), 'td-classic-2p');

    // A new game asks before discarding it: refused, the game goes on.
    answer = false;
    await page.click('#new-game');
    assert.strictEqual(dialogs.length, 1);
    assert.match(dialogs[0], /A new game discards the game in progress \(seed 3, \d+ rolls played\)/);
    assert.match(await message(), /No new game: the game on the board goes on/);
    assert.strictEqual((await st()).position, back.position);
    answer = true;

    // Play it out; the end on a phone and a desktop.
    for (let guard = 0; (s = await st()).phase !== 'over'; guard++) {
      assert(guard < 5000, 'the game ends');
      await page.keyboard.press(s.phase === 'roll' ? 'r' : '1');
      await idle();
    }
    assert.match(await page.$eval('#announce', (e) => e.textContent), /rolled \d: /);
    const over = await st();
    await shot('phone-end', PHONE);
    await shot('desktop-end', DESKTOP);
    assert.strictEqual((await st()).position, over.position, 'the finished game stays on the page');
    const record = path.join(work, 'person.jsonl');
    fs.writeFileSync(record, await page.evaluate(() => window.aeroplanePage.record()));
    execFileSync(bin, ['replay', '--log', record, '--check']);

    // A long think: the sign shows, Cancel stops it, the game is as before the bot's roll.
    dialogs.length = 0;
    await startGame(['person', 'mcts:iterations=1000000'], 12, 0);
    await idle();
    for (let guard = 0; !(await page.$eval('#thinking', (e) => !e.hidden)); guard++) {
      assert(guard < 3000, 'the bot thinks at last');
      s = await st();
      if (s.person_to_move) { await page.keyboard.press(s.phase === 'roll' ? 'r' : '1'); }
      await page.waitForFunction(() => window.aeroplanePage.idle() || !document.getElementById('thinking').hidden, { timeout: 60000 });
    }
    const thinking = await st();
    assert.match(await page.$eval('#thinking', (e) => e.textContent), /blue \(mcts:iterations=1000000\) is thinking/);
    assert.strictEqual(await page.$eval('#roll', (e) => e.disabled), true);
    await page.click('#cancel');
    await idle();
    const paused = await st();
    assert.strictEqual(paused.position, thinking.position, 'cancel leaves the game before the bot\'s roll');
    assert.strictEqual(paused.rolls, thinking.rolls);
    assert.match(await message(), /^info: Cancelled blue's think: the bots wait/);
    assert.strictEqual(await page.$eval('#continue', (e) => e.hidden), false);

    // A run's log of three games: the page lists them, the person chooses game 2, and the
    // page plays game 2 of the run (its deal's dice and bots' seeds): its position, its rolls,
    // and a record whose game lines are the run's, which replay --check accepts.
    const runDir = path.join(work, 'run3');
    fs.rmSync(runDir, { recursive: true, force: true });
    execFileSync(bin, ['run', '--rules', 'classic', '--bots', 'greedy,random', '--games', '3', '--seed', '4', '--out', runDir,
      '--log-games', 'g.jsonl', '--threads', '1'], { stdio: 'ignore' });
    const log3 = path.join(runDir, 'g.jsonl');
    const runLines = fs.readFileSync(log3, 'utf8').split('\n');
    assert.strictEqual(runLines.filter((l) => l.startsWith('{"game"')).length, 3);
    const input = await page.$('#upload');
    await input.uploadFile(log3);
    await page.waitForFunction(() => !document.getElementById('chooser').hidden);
    const options = await page.$$eval('#game-choice option', (os) => os.map((o) => [o.value, o.textContent]));
    assert.deepStrictEqual(options.map((o) => o[0]), ['0', '1', '2']);
    const result2 = JSON.parse(runLines.find((l) => l.startsWith('{"game":2,')));
    assert.strictEqual(options[2][1], 'Game 2: red greedy, blue random; ' +
      ['red', 'yellow', 'blue', 'green'][result2.winner] + ' won in ' + result2.turns + ' turns');
    assert.match(await page.$eval('#chooser-text', (e) => e.textContent), /g\.jsonl holds 3 games: choose the one to load/);
    await page.select('#game-choice', '2');
    await page.click('#game-load');
    await page.waitForFunction(() => /^Loaded game 2 of /.test(document.getElementById('message').textContent));
    await idle();
    assert.match(await message(), /^info: Loaded game 2 of g\.jsonl: \d+ rolls \(game 2 of seed 4: its dice and seats\)\./);
    assert.strictEqual(await page.$eval('#chooser', (e) => e.hidden), true);
    const game2 = JSON.parse(execFileSync(bin, ['replay', '--log', log3, '--game', '2', '--json'], { encoding: 'utf8' }));
    const shown2 = await st();
    assert.strictEqual(shown2.game, 2);
    assert.strictEqual(await page.evaluate(() => document.body.getAttribute('data-game')), '2');
    assert.strictEqual(shown2.rolls, game2.log.length);
    assert.strictEqual(shown2.phase, 'over');
    assert.strictEqual(shown2.position, result2.position, 'the board shows game 2\'s final position');
    assert.strictEqual(shown2.winner, result2.winner);
    const record2 = await page.evaluate(() => window.aeroplanePage.record());
    const lines2 = runLines.filter((l) => l.startsWith('[2,') || l.startsWith('{"game":2,')).join('\n') + '\n';
    assert.strictEqual(record2.slice(record2.indexOf('\n') + 1), lines2, 'the page\'s game 2 lines are the run\'s');
    const file2 = path.join(work, 'game2.jsonl');
    fs.writeFileSync(file2, record2);
    execFileSync(bin, ['replay', '--log', file2, '--check']);
    const again = JSON.parse(execFileSync(bin, ['replay', '--log', file2, '--game', '2', '--json'], { encoding: 'utf8' }));
    assert.deepStrictEqual(again.record, game2.record, 'the page\'s record replays as the run\'s game 2');

    // Bot-only: a game started while another's bot move slides; its record is the CLI's, byte
    // for byte (the old game's animation started nothing in it).
    await startGame(['greedy', 'td-classic-2p:ply=1'], 21, 900);
    await page.waitForFunction(() => window.aeroplanePage.rolls().length >= 1 && document.querySelector('#planes .pile[transform]') !== null, { timeout: 60000 });
    await startGame(['td-classic-2p', 'expectimax'], 8, 0);
    await page.waitForFunction(() => window.aeroplanePage.state().phase === 'over' && window.aeroplanePage.idle(), { timeout: 120000 });
    const pageRecord = await page.evaluate(() => window.aeroplanePage.record());
    const botDir = path.join(work, 'bots');
    fs.rmSync(botDir, { recursive: true, force: true });
    execFileSync(bin, ['run', '--rules', 'classic', '--bots', 'td-classic-2p,expectimax', '--games', '1', '--seed', '8', '--out', botDir,
      '--log-games', 'g.jsonl', '--threads', '1'], { stdio: 'ignore' });
    assert.strictEqual(pageRecord, fs.readFileSync(path.join(botDir, 'g.jsonl'), 'utf8'), 'the page\'s bot-only record is the CLI\'s');
    const played = await page.evaluate(() => window.aeroplanePage.rolls());
    assert.deepStrictEqual(played.map((r) => r.n), played.map((r, i) => i + 1), 'each roll drawn once');
    console.log(`play test: phone, small phone and desktop layouts, the coach (${c.bot}), reload, cancel, ` +
      `game 2 of a 3-game log, a bot-only game equal to the CLI's; screenshots ${shots.map((f) => path.basename(f)).join(', ')}`);
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  if (messages.length) {
    console.error('play test: messages from the page:\n' + messages.join('\n'));
    process.exit(1);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
