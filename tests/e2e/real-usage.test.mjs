// What a real agent costs and when the limits hit, from the real Claude Code CLI (pinned, from npm) as
// ClawMux spawns it, signed in as a subscription account (a dummy token the scripted model accepts): the
// model reports known usage and the account's limits in its answers' headers, as the API does. The figures
// the sidebar shows in Chromium are the ones the model reported; the user's own status-line command still
// prints in the agent's terminal; a 429 at the limit holds the agent as rate-limited (not an error) until
// the reset, nothing reaches the model meanwhile, and, opted in, the agent is continued after the reset.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS, openUi, startHub, within } from './harness.mjs';
import { bash, useClaudeAndBrowser, limitHeaders, prepareHome, startModel, subscriptionEnv } from './real-claude.mjs';

const real = useClaudeAndBrowser();

/** What each answer says it used. */
const USED = { input_tokens: 1200, cache_creation_input_tokens: 300, cache_read_input_tokens: 45000, output_tokens: 321 };

test('a real agent: its figures in the sidebar, the user\'s own line in its terminal, held at the limit and continued after it', async () => {
  const now = Math.floor(Date.now() / 1000);
  // The 5-hour window resets soon after the test's start: the agent hits its limit before that, and is
  // continued after it. The 429 says the same reset as every answer before it, as the API does.
  const fiveHour = [0.42, now + 50];
  const sevenDay = [0.17, now + 4 * 86400];
  // Set when the model answers 429 at the limit: the window's reset (epoch s).
  let limit = null;
  const afterLimit = [];
  const continued = [];
  const model = await startModel(({ last }) => {
    if (limit) afterLimit.push({ at: Date.now(), last });
    if (/usage limit that stopped you has reset/.test(last)) {
      continued.push(Date.now());
      return bash("clawmux send --to user 'continued after the reset'", 'tell the user');
    }
    const msg = /\[MSG id:(msg-[0-9a-f]{8}) from:user\] (.*)/.exec(last);
    if (msg && msg[2] === 'hit the limit' && !limit) {
      limit = fiveHour[1];
      return { rejected: limitHeaders([1, limit], sevenDay, 'rejected') };
    }
    if (msg) return bash(`clawmux send --to user --re ${msg[1]} 'heard: ${msg[2]}'`, 'answer the user');
    return bash('clawmux wait', 'wait for the next message');
  }, {
    usage: USED,
    headers: () => (limit && Date.now() / 1000 < limit ? limitHeaders([1, limit], sevenDay, 'rejected') : limitHeaders(fiveHour, sevenDay, 'allowed_warning')),
  });
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: real.claude, ...subscriptionEnv(model.port), CLAWMUX_CONTINUE_GAP_MS: '1000' } });
  const work = join(hub.dir, 'agents', 'sky');
  mkdirSync(work, { recursive: true });
  prepareHome(hub.dir, [work]);
  // The user's own status line, in their Claude Code settings: it must still print in the terminal.
  mkdirSync(join(hub.dir, '.claude'), { recursive: true });
  writeFileSync(join(hub.dir, '.claude/settings.json'), JSON.stringify({
    statusLine: { type: 'command', command: "cat >/dev/null; printf 'users-own-line ok'" },
  }));
  let ev = await hub.events();
  /** A usage event of sky's at or after `mark` that satisfies `pred`. */
  const usageOf = (mark, pred, ms, what) => ev.until((e) => ev.seen.indexOf(e) >= mark && e.type === 'usage' && e.usage.session_id === 'sky' && pred(e.usage), ms, `sky's usage: ${what}`);
  const { page, errors } = await openUi(real.browser, hub);
  try {
    let m = ev.mark();
    await hub.api('POST', '/api/command', { command: 'spawn', name: 'sky', work_dir: work });
    await ev.state('sky', 'idle', m, 90000);

    // Opted in to continue after a limit, from the agent's header. Figures made before the choice reached
    // the hub (a status line's, drawn while the command is on its way) must not undo the click: the
    // command is held, and such figures are handed to the page meanwhile.
    let toPage = null;
    await page.routeWebSocket(/\/ws\?/, (ws) => {
      ws.connectToServer();
      toPage = (event) => ws.send(JSON.stringify(event));
    });
    await page.reload();
    await page.waitForSelector('#connection.online');
    let release;
    const onItsWay = new Promise((ok) => { release = ok; });
    await page.route('**/api/command', async (route) => {
      if (route.request().postData()?.includes('"usage_continue"')) await onItsWay;
      await route.continue();
    });
    await page.click('[data-agent="sky"]');
    await page.check('#act-continue');
    toPage({ type: 'usage', usage: { session_id: 'sky', model: 'stale-figures', tokens: { input: 0, output: 0, cache_read: 0 }, continues: false } });
    await page.waitForFunction(() => document.getElementById('agent-usage').textContent.startsWith('stale-figures'));
    assert.equal(await page.isChecked('#act-continue'), true, 'figures drawn while the choice was on its way undid the click');
    release();
    await within((async () => {
      while (!(await hub.api('POST', '/api/command', { command: 'usage' })).agents.some((a) => a.session_id === 'sky' && a.continues)) {
        await new Promise((ok) => setTimeout(ok, 100));
      }
    })(), 10000, 'the choice, kept');

    // A first exchange: the answers report USED; the status line hands it over.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'hello' });
    await ev.event('assistant_text', 'sky', m, (e) => e.text === 'heard: hello', 60000);
    // The context and the cost from the status line; the tokens from the transcript's answer, counted once.
    const usage = (await usageOf(m, (u) => u.context?.used === 46500 && u.tokens.output >= USED.output_tokens, 60000, 'the figures the model reported')).usage;
    // What the model reported, as Claude Code counts it: the context is the last request's input, cached or not.
    assert.equal(usage.context.used, USED.input_tokens + USED.cache_creation_input_tokens + USED.cache_read_input_tokens);
    assert.equal(usage.tokens.cache_read, USED.cache_read_input_tokens);
    assert.equal(usage.tokens.cache_write, USED.cache_creation_input_tokens);
    assert.ok(usage.tokens.output >= USED.output_tokens, JSON.stringify(usage.tokens));
    assert.ok(usage.cost_usd > 0, 'Claude Code\'s estimate');
    assert.equal(usage.continues, true);
    const limits = (await ev.until((e) => e.type === 'limits' && e.account.limits.length === 2, 30000, 'the account\'s limits')).account.limits;
    assert.deepEqual(limits.map((l) => [l.window, l.percent, l.resets_at]), [
      ['five_hour', 42, fiveHour[1] * 1000], ['seven_day', 17, sevenDay[1] * 1000],
    ]);
    // The sidebar, in Chromium, shows the same figures, and the header the account's.
    const latest = () => ev.seen.filter((e) => e.type === 'usage' && e.usage.session_id === 'sky').at(-1).usage;
    await page.waitForFunction((line) => document.querySelector('[data-agent="sky"] .usage')?.textContent === line, latest().line, { timeout: 10000 });
    assert.match(latest().line, new RegExp(`^${usage.context.percent}% · 47k/`));
    await page.waitForFunction(() => /5-hour 42%/.test(document.querySelector('#limits')?.textContent ?? ''), null, { timeout: 10000 });
    assert.match(await page.textContent('#limits'), /7-day 17%/);
    // The user's own line is what the terminal shows at its foot.
    await within((async () => {
      for (;;) {
        if (hub.tmux(['capture-pane', '-p', '-t', '=sky:']).includes('users-own-line ok')) return;
        await new Promise((ok) => setTimeout(ok, 200));
      }
    })(), 20000, 'the user\'s own status line in the terminal');

    // The limit: the next answer is a 429 at the 5-hour limit.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'hit the limit' });
    const held = await usageOf(m, (u) => u.limited?.until === limit * 1000, 60000, 'held until the reset');
    const status = await ev.until((e) => ev.seen.indexOf(e) >= m && e.type === 'session_status' && e.session_id === 'sky' && e.needs, 30000, 'the rate-limited status');
    assert.equal(status.needs.need, 'rate_limited');
    assert.match(status.needs.reason, /limit/);
    assert.equal(held.usage.limited.continues_at, limit * 1000 + 2000);
    await page.waitForSelector('#chat-status.rate-limited', { timeout: 10000 });
    assert.equal(await page.textContent('[data-agent="sky"] .label'), 'Rate-limited');
    assert.match(await page.textContent('[data-agent="sky"] .usage'), /^Rate-limited until (?:\w+ )?\d\d:\d\d, then continues$/);
    assert.equal(await page.isChecked('#act-continue'), true);
    await page.screenshot({ path: join(ARTIFACTS, 'usage-rate-limited.png') });

    // The hub stops and starts again while the agent is held (the user quits and reopens the app): the
    // agent, still running in tmux, is taken over, held again, and nothing is typed into it before the reset.
    ev.close();
    await hub.restart();
    ev = await hub.events();
    m = 0;

    // After the reset, ClawMux continues it: the first request the model sees after the 429.
    await within((async () => {
      while (continued.length === 0) await new Promise((ok) => setTimeout(ok, 200));
    })(), 60000, 'the continuation');
    // Nothing reached the model while it was held: the first request after the 429 is the continuation,
    // after the reset.
    assert.deepEqual(afterLimit.filter((r) => r.at < limit * 1000), [], 'nothing while held');
    assert.match(afterLimit[0].last, /usage limit that stopped you has reset/);
    await ev.event('assistant_text', 'sky', m, (e) => e.text === 'continued after the reset', 60000);
    const note = await ev.until((e) => /was continued: the usage limit that stopped it reset/.test(JSON.stringify(e)), 10000, 'the continuation, recorded');
    assert.ok(note);
    // Working again, it is no longer held, in the page too (it reconnected to the hub started again).
    await usageOf(m, (u) => u.limited === null, 30000, 'freed');
    await page.waitForFunction(() => !document.querySelector('[data-agent="sky"]').dataset.limited, null, { timeout: 10000 });
    assert.deepEqual(errors, []);
  } finally {
    await page.context().close();
    ev.close();
    hub.stop();
    await model.close();
  }
});
