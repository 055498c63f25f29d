// The play page in headless Chromium (the system's, through puppeteer-core: no browser is
// downloaded), driven with clicks and keys through a whole game of a person against a bot
// (td with the shipped net, searching one roll ahead): screenshots at the start, at the first
// capture, after a bot's move (with the value it gave each move and its think time) and at
// the end, each disc
// checked for its seat's colour (tests/web/check_png.py); the planes drawn equal the engine's
// position; illegal clicks say why and change nothing; undo; a record the core refuses and a
// corrupted upload are clear messages and leave the game as it was; the downloaded record
// replayed by `aeroplane replay --log` equals the page's moves; no console message at all.
//
//     node tests/web/page_test.js target/web/aeroplane.html target/debug/aeroplane WORK_DIR
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
  try {
    const page = await browser.newPage();
    page.on('console', (m) => messages.push(`console ${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => messages.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => messages.push(`request failed: ${r.url()}`));
    await page.setViewport({ width: 1100, height: 700 });
    const downloads = path.join(work, 'downloads');
    fs.rmSync(downloads, { recursive: true, force: true });
    fs.mkdirSync(downloads);
    const cdp = await page.createCDPSession();
    await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloads });
    await page.goto('file://' + path.resolve(pagePath));
    await page.waitForFunction(() => window.aeroplanePage && window.aeroplanePage.idle());

    const st = () => page.evaluate(() => window.aeroplanePage.state());
    const idle = () => page.waitForFunction(() => window.aeroplanePage.idle());
    const message = () => page.$eval('#message', (e) => e.className + ': ' + e.textContent);

    // Every pile drawn: its seat, planes, step and the screen centre of its top disc.
    async function piles() {
      return page.$$eval('#planes .pile', (gs) => gs.map((g) => {
        const discs = g.querySelectorAll('circle.plane');
        const r = discs[discs.length - 1].getBoundingClientRect();
        return { seat: Number(g.dataset.seat), planes: g.dataset.planes.split(',').map(Number), step: Number(g.dataset.step),
          x: r.left + r.width / 2, y: r.top + r.height / 2 };
      }));
    }
    async function checkDrawn(where) {
      const s = await st();
      const drawn = await piles();
      const steps = [[], [], [], []];
      for (const p of drawn) { for (const q of p.planes) { steps[p.seat][q] = p.step; } }
      assert.deepStrictEqual(steps, s.steps, `${where}: the planes drawn are the engine's position`);
      return drawn;
    }
    async function shot(name) {
      const drawn = await checkDrawn(name);
      const file = path.join(work, `web-${name}.png`);
      await page.screenshot({ path: file });
      const discs = path.join(work, `web-${name}.json`);
      fs.writeFileSync(discs, JSON.stringify(drawn));
      execFileSync('python3', [path.join(__dirname, 'check_png.py'), file, discs], { stdio: 'inherit' });
      shots.push(file);
    }

    // The menus offer the search bots and, for these rules and players, the td bots whose
    // shipped net fits.
    await page.select('#players', '2');
    const offered = await page.$$eval('#seat-1 option', (os) => os.map((o) => o.value));
    for (const b of ['greedy', 'random', 'expectimax', 'expectimax-deep', 'montecarlo', 'mcts', 'mcts-rollout',
      'td-classic-2p', 'td-classic-2p:ply=1', 'td-classic-2p:ply=2', 'other']) {
      assert(offered.includes(b), `the menu offers ${b}: ${offered}`);
    }
    assert(!offered.includes('td-classic-4p'), 'no net of another player count');
    // A bot typed by name: a parameter out of range is refused, saying what is allowed.
    await page.select('#seat-1', 'other');
    await page.$eval('#seat-1-name', (e) => { e.value = 'expectimax:depth=7'; });
    await page.click('#new-game');
    await page.waitForFunction(() => /^No new game/.test(document.getElementById('message').textContent));
    assert.match(await message(), /^error: No new game: seat 1 \(blue\): expectimax:depth=7: bad value `7` for parameter `depth`: allowed is an integer from 1 to/);

    // A new game: red a person, blue td (the classic net for two, one roll of search), seed 3,
    // bots instant.
    await page.select('#seat-0', 'person');
    await page.select('#seat-1', 'td-classic-2p:ply=1');
    await page.$eval('#seed', (e) => { e.value = '3'; });
    await page.select('#speed', '0');
    await page.click('#new-game');
    await idle();
    let s = await st();
    assert.strictEqual(s.phase, 'roll');
    assert(s.person_to_move);
    await shot('start');

    // Illegal clicks: the bot's plane, a plane before rolling.
    const before = (await st()).position;
    await page.click('#planes .pile[data-seat="2"]');
    assert.match(await message(), /^error: That is a blue plane: you play red/);
    await page.click('#planes .pile[data-seat="0"]');
    assert.match(await message(), /^error: Roll the die first/);
    assert.strictEqual((await st()).position, before);

    let captured = false;
    let botShot = false;
    let undone = false;
    let noMoveClick = false;
    let decisions = 0;
    for (let guard = 0; (s = await st()).phase !== 'over'; guard++) {
      assert(guard < 5000, 'the game ends');
      if (s.phase === 'roll') {
        if (guard % 2) { await page.click('#roll'); } else { await page.keyboard.press('r'); }
      } else {
        // A plane of red's with no legal move: clicking it says why and changes nothing.
        const all = await piles();
        const stuck = all.find((p) => p.seat === 0 && !s.legal.some((m) => m.from === p.step && m.planes.includes(p.planes[0])));
        if (stuck && !noMoveClick) {
          await page.mouse.click(stuck.x, stuck.y);
          assert.match(await message(), /has no legal move for a roll of/);
          assert.strictEqual((await st()).position, s.position);
          noMoveClick = true;
        }
        const k = decisions % 3 === 2 ? s.legal.length - 1 : 0;
        const mv = s.legal[k];
        if (decisions === 4 && !undone) {
          await page.keyboard.press(String(k + 1));
          await idle();
          await page.keyboard.press('u');
          await idle();
          const back = await st();
          assert.strictEqual(back.position, s.position, 'undo comes back to the decision');
          undone = true;
        }
        const target = (await piles()).find((p) => p.seat === 0 && p.step === mv.from && p.planes.includes(mv.planes[0]));
        const twoFromThere = s.legal.filter((m) => m.from === mv.from && m.planes.includes(mv.planes[0])).length > 1;
        if (decisions % 2 === 0 && target && !twoFromThere) {
          await page.mouse.click(target.x, target.y);
        } else if (decisions % 2 === 1) {
          await page.click(`#legal button[data-index="${k}"]`);
        } else {
          await page.keyboard.press(String(k + 1));
        }
        decisions += 1;
      }
      await idle();
      const rolls = await page.evaluate(() => window.aeroplanePage.rolls());
      const last = rolls[rolls.length - 1];
      if (!captured && last && /captures/.test(last.text)) {
        await shot('capture');
        captured = true;
      }
      if (!botShot && last && last.seat === 2 && last.chosen !== null && last.legal.length > 1 &&
        last.legal.length >= 3 && last.values) {
        // The panel lists the moves with the value the bot gave each and the time it thought.
        const table = await page.$eval('#last-moves', (t) => t.textContent);
        assert.match(table, /value/);
        const shownValues = await page.$$eval('#last-moves tr td.num', (tds) => tds.map((t) => Number(t.textContent)));
        assert.deepStrictEqual(shownValues, last.values.map((v) => Math.round(v * 1000) / 1000));
        assert.match(await page.$eval('#last', (e) => e.textContent), /\(thought [0-9.]+ ms\)/);
        assert.match(await page.$eval('#seat-list', (e) => e.textContent), /thinks [0-9.]+ ms a move/);
        await shot('bot-move');
        botShot = true;
      }
    }
    assert(undone && noMoveClick && botShot, 'the game had an undo, a stuck plane and a bot decision');
    await shot('end');
    const end = await st();

    // The record: downloaded, replayed by the CLI, equal to the page's moves.
    await page.click('#download');
    let file = null;
    for (let i = 0; i < 200 && !file; i++) {
      file = fs.readdirSync(downloads).find((f) => f.endsWith('.jsonl'));
      if (!file) { await new Promise((r) => setTimeout(r, 50)); }
    }
    assert(file, 'the record was downloaded');
    const record = path.join(downloads, file);
    await new Promise((r) => setTimeout(r, 200));
    const replay = JSON.parse(execFileSync(bin, ['replay', '--log', record, '--game', '0', '--json'], { encoding: 'utf8' }));
    const played = (await page.evaluate(() => window.aeroplanePage.rolls()))
      .map((r) => [r.seat, r.roll, r.chosen === null ? null : r.legal[r.chosen].notation]);
    const replayed = replay.log.map((l) => [l.seat, l.roll, l.chosen === null ? null : l.legal[l.chosen].id]);
    assert.deepStrictEqual(replayed, played, 'replay --log of the downloaded record is the game played');
    execFileSync(bin, ['replay', '--log', record, '--check']);

    // A corrupted upload: a clear message, the game unchanged.
    const text = fs.readFileSync(record, 'utf8');
    const bad = path.join(work, 'corrupted.jsonl');
    fs.writeFileSync(bad, text.replace(/\n\[0,0,0,(\d),/, (m, r) => `\n[0,0,0,${r === '6' ? 5 : 6},`));
    const input = await page.$('#upload');
    await input.uploadFile(bad);
    await page.waitForFunction(() => document.getElementById('message').textContent !== '' &&
      /record was not loaded/.test(document.getElementById('message').textContent));
    assert.match(await message(), /^error: The record was not loaded \(the game on the board goes on\): line 2: /);
    assert.strictEqual((await st()).position, end.position);
    // Rules the core refuses: a clear message, the game unchanged.
    await page.select('#rules-preset', 'toml');
    await page.$eval('#rules-toml', (e) => { e.value = 'base = "classic"\nplanes = 9'; });
    await page.click('#new-game');
    await page.waitForFunction(() => /^No new game/.test(document.getElementById('message').textContent));
    await idle();
    assert.match(await message(), /^error: No new game: the rules are refused: .*planes/);
    assert.strictEqual((await st()).position, end.position);
    // The good record loads back: the same game.
    await input.uploadFile(record);
    await page.waitForFunction(() => /^Loaded /.test(document.getElementById('message').textContent));
    await idle();
    assert.strictEqual((await st()).position, end.position);
    await checkDrawn('uploaded');
    console.log(`page test: a whole game of ${played.length} rolls (${decisions} decisions by clicks and keys), ` +
      `record replayed; screenshots ${shots.map((f) => path.basename(f)).join(', ')}`);
  } finally {
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  if (messages.length) {
    console.error('page test: messages from the page:\n' + messages.join('\n'));
    process.exit(1);
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
