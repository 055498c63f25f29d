// How long the bots think per decision on the play page: a measurement, not a test (it asserts
// nothing about times). For each bot it plays seeded bot-only games on the page in headless
// Chromium (the bots' menus, speed instant; the page times each `botMove` with
// performance.now()) and through the Node.js module (process.hrtime.bigint() around each
// `botMove`), and prints the median, mean and 90th percentile of the decisions' times (rolls
// with two or more legal moves; a roll without a choice asks no bot). The page is served from
// 127.0.0.1 with the headers that make it cross-origin isolated, where Chromium's
// performance.now() has 5 µs steps (opened from file:// they are 100 µs).
//
//     bash web/build.sh && (cd tests/web && npm ci)
//     node tests/web/think_time.js target/web [GAMES]
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const http = require('http');
const puppeteer = require('puppeteer-core');

const [webDir, gamesArg] = process.argv.slice(2);
if (!webDir) {
  console.error('usage: node tests/web/think_time.js TARGET_WEB_DIR [GAMES]');
  process.exit(2);
}
const games = Number(gamesArg || 3);
const web = require(path.resolve(webDir, 'node', 'aeroplane_web.js'));

// (rules, players, the bot measured in every seat).
const cases = [
  ['classic', 4, 'greedy'],
  ['classic', 4, 'expectimax'],
  ['classic', 2, 'expectimax'],
  ['classic', 4, 'expectimax-deep'],
  ['classic', 4, 'montecarlo'],
  ['classic', 4, 'mcts'],
  ['classic', 4, 'mcts-rollout'],
  ['classic', 4, 'td-classic-4p'],
  ['classic', 4, 'td-classic-4p:ply=1'],
  ['classic', 2, 'td-classic-2p'],
  ['classic', 2, 'td-classic-2p:ply=1'],
  ['classic', 2, 'td-classic-2p:ply=2'],
];

function stats(ms) {
  const s = ms.slice().sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return { n: s.length, median: q(0.5), mean, p90: q(0.9), max: s[s.length - 1] };
}
function fmt(st) {
  const f = (x) => (x < 1 ? x.toFixed(3) : x.toFixed(2));
  return `${String(st.n).padStart(5)} decisions: median ${f(st.median)} ms, mean ${f(st.mean)} ms, p90 ${f(st.p90)} ms, max ${f(st.max)} ms`;
}

function nodeTimes(rules, players, bot) {
  const ms = [];
  for (let g = 0; g < games; g++) {
    const game = new web.WebGame(JSON.stringify({ rules, players, seats: Array(players).fill(bot), seed: 100 + g }));
    let seen = 0;
    while (JSON.parse(game.state()).phase !== 'over') {
      const t0 = process.hrtime.bigint();
      game.botMove();
      const t = Number(process.hrtime.bigint() - t0) / 1e6;
      const rolls = JSON.parse(game.rolls(seen));
      seen += rolls.length;
      if (rolls[rolls.length - 1].legal.length > 1) { ms.push(t); }
    }
    game.free();
  }
  return stats(ms);
}

async function pageTimes(page, rules, players, bot) {
  const ms = [];
  for (let g = 0; g < games; g++) {
    await page.select('#rules-preset', rules);
    await page.select('#players', String(players));
    for (let k = 0; k < players; k++) { await page.select(`#seat-${k}`, bot); }
    await page.$eval('#seed', (e, v) => { e.value = v; }, String(100 + g));
    await page.select('#speed', '0');
    await page.click('#new-game');
    await page.waitForFunction(() => window.aeroplanePage.state() && window.aeroplanePage.state().phase === 'over' &&
      window.aeroplanePage.idle(), { timeout: 0, polling: 200 });
    const bySeat = JSON.parse(await page.$eval('body', (b) => b.getAttribute('data-think-ms') || '[[],[],[],[]]'));
    for (const s of bySeat) { ms.push(...s); }
  }
  return stats(ms);
}

async function main() {
  console.log(`think time per decision, ${games} games per bot (seeds 100..${99 + games}), every seat the bot; ` +
    `${os.cpus().length} CPUs, load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const html = fs.readFileSync(path.resolve(webDir, 'aeroplane.html'));
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp' });
    res.end(html);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'aeroplane-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${server.address().port}/aeroplane.html`);
    await page.waitForFunction(() => window.aeroplanePage && window.aeroplanePage.idle());
    if (!(await page.evaluate(() => window.crossOriginIsolated))) { throw new Error('the page is not cross-origin isolated'); }
    for (const [rules, players, bot] of cases) {
      const what = `${bot} (${rules}, ${players} players)`;
      console.log(`${what.padEnd(42)} node:     ${fmt(nodeTimes(rules, players, bot))}`);
      console.log(`${''.padEnd(42)} chromium: ${fmt(await pageTimes(page, rules, players, bot))}`);
    }
  } finally {
    server.close();
    await browser.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(`load at the end: ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}

main().catch((e) => { console.error(e); process.exit(1); });
