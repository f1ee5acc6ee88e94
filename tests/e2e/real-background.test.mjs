// The real Claude Code CLI, spawned by ClawMux, left waiting in `clawmux wait` while something of Claude
// Code's own comes due: work it started in the background ends, a Monitor it set says a line (Claude Code
// queues a notice it hands over only when a tool call ends, and the agent sits inside one, its wait), or a
// wake-up it scheduled is due (Claude Code fires one only at its prompt, which the agent never reaches).
// The hub ends the wait saying so; the model takes it, and waits again; the sidebar says what runs in the
// background meanwhile. Prints how long each took to reach the model.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openBrowser, openUi, startHub } from './harness.mjs';
import { bash, claudeBinary, claudeEnv, prepareHome, spawnSky, startModel } from './real-claude.mjs';

/** Runs `body(hub, ev)` with agent `sky` the real CLI talking to the scripted model `rules` (a model that
 * otherwise waits), spawned and in its wait; stops the hub and the model after. */
async function withSky(rules, body) {
  const model = await startModel((asked) => rules(asked) ?? bash('clawmux wait', 'wait for the next message'));
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claudeBinary(), ...claudeEnv(model.port) } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  const ev = await hub.events();
  try {
    await spawnSky(hub, ev);
    await body(hub, ev);
  } finally {
    await hub.stop();
    await model.close();
  }
}

/** Waits until the element `selector` of `page` says exactly `text`. */
async function says(page, selector, text) {
  try {
    await page.waitForFunction(([sel, want]) => document.querySelector(sel)?.textContent === want, [selector, text], { timeout: 10000 });
  } catch {
    assert.equal(await page.textContent(selector), text, selector);
  }
}

/** Sends the user's `text` to sky and waits for its answer `answer` (the model is back in its wait then). */
async function ask(hub, ev, text, answer) {
  const m = ev.mark();
  await hub.api('POST', '/api/sessions/sky/messages', { text });
  return ev.event('assistant_text', 'sky', m, (e) => e.text === answer, 60000);
}

test('background work that ends while the agent waits reaches its model at once, and it waits again; the sidebar says it runs', async () => {
  let told = null;
  let go = null;
  await withSky(({ last }) => {
    if (/\[MSG id:msg-[0-9a-f]{8} from:user\] start the job/.test(last)) {
      // The job runs until the test lets it end, once it has seen the sidebar say so.
      const command = `while [ ! -e '${go}' ]; do sleep 0.1; done; echo BGDONE`;
      return { tool: { name: 'Bash', input: { command, description: 'the slow job', run_in_background: true } } };
    }
    if (/Command running in background/.test(last)) return bash(`clawmux send --to user 'started'`, 'answer');
    if (/Claude Code has something for you/.test(last) && told === null) {
      told = { at: Date.now(), last };
      return bash(`clawmux send --to user 'the job is done'`, 'report');
    }
    return null;
  }, async (hub, ev) => {
    go = join(hub.dir, 'go');
    const browser = await openBrowser();
    try {
      const { page, errors } = await openUi(browser, hub);
      const before = ev.mark();
      const started = await ask(hub, ev, 'start the job', 'started');
      // Idle in its wait, with its job running: the row, the event and the sidebar say so.
      await ev.event('background', 'sky', before, (e) => e.running === 1, 60000);
      await ev.state('sky', 'idle', ev.seen.indexOf(started), 60000);
      const row = (await hub.api('GET', '/api/sessions')).find((s) => s.session_id === 'sky');
      assert.equal(row.background, 1);
      const item = '#agents [data-agent="sky"]';
      await says(page, `${item} .label`, 'Idle, work in the background');
      await says(page, `${item} .background`, '1 task running in the background');
      // Back in its wait before the job ends: the notice has to end the wait.
      const m = ev.mark();
      writeFileSync(go, '');
      const done = await ev.event('assistant_text', 'sky', m, (e) => e.text === 'the job is done', 60000);
      assert.match(told.last, /\[CLAWMUX\] Claude Code has something for you: Background command "the slow job" completed/);
      // Claude Code's own notice came with the wait's result.
      assert.match(told.last, /automated background-task event[\s\S]*the slow job/);
      // The job's last write (its output file) is when it ended.
      const output = /(\/tmp\/claude-[^\s]+\.output)/.exec(told.last)?.[1];
      assert.match(readFileSync(output, 'utf8'), /^BGDONE/);
      console.log(`background job end to the model, while it waited: ${Math.round(told.at - statSync(output).mtimeMs)} ms`);
      // And it waits again, with nothing in the background.
      await ev.state('sky', 'idle', ev.seen.indexOf(done), 60000);
      await ev.event('background', 'sky', m, (e) => e.running === 0, 60000);
      await says(page, `${item} .label`, 'Idle');
      await says(page, `${item} .background`, '');
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
    }
  });
});

test('a wake-up the model scheduled reaches it in its wait (Claude Code fires one only at its prompt)', async () => {
  let scheduled = null;
  let woke = null;
  await withSky(({ last }) => {
    if (/\[MSG id:msg-[0-9a-f]{8} from:user\] check the build later/.test(last)) {
      return { tool: { name: 'ScheduleWakeup', input: { delaySeconds: 60, reason: 'the build takes a minute', prompt: 'check the build now' } } };
    }
    if (/Next wakeup scheduled for/.test(last) && scheduled === null) {
      scheduled = Date.now() + Number(/\(in (\d+)s\)/.exec(last)[1]) * 1000;
      return bash(`clawmux send --to user 'scheduled'`, 'answer');
    }
    if (/The wake-up you scheduled is due/.test(last) && woke === null) {
      woke = { at: Date.now(), last };
      return bash(`clawmux send --to user 'checked the build'`, 'report');
    }
    return null;
  }, async (hub, ev) => {
    await ask(hub, ev, 'check the build later', 'scheduled');
    // A minute or two: Claude Code takes a minute at least, to the next whole minute.
    const m = ev.mark();
    const reported = await ev.event('assistant_text', 'sky', m, (e) => e.text === 'checked the build', 240000);
    assert.match(woke.last, /\(the build takes a minute\)[\s\S]*here is its prompt: check the build now\./);
    console.log(`a wake-up to the model in its wait, after the time Claude Code set: ${woke.at - scheduled} ms`);
    await ev.state('sky', 'idle', ev.seen.indexOf(reported), 60000);
  });
});

test('a Monitor is work in the background: its lines reach the model in its wait, and the sidebar says it runs until it ends', async () => {
  let go = null;
  let told = null;
  await withSky(({ last }) => {
    if (/\[MSG id:msg-[0-9a-f]{8} from:user\] watch the build/.test(last)) {
      const command = `while [ ! -e '${go}' ]; do sleep 0.1; done; echo build ok`;
      return { tool: { name: 'Monitor', input: { description: 'the build', command } } };
    }
    if (/Monitor started/.test(last)) return bash(`clawmux send --to user 'watching'`, 'answer');
    if (/Claude Code has something for you/.test(last) && told === null) {
      told = { at: Date.now(), last };
      return bash(`clawmux send --to user 'the build said something'`, 'report');
    }
    return null;
  }, async (hub, ev) => {
    go = join(hub.dir, 'go');
    const before = ev.mark();
    const watching = await ask(hub, ev, 'watch the build', 'watching');
    // Idle in its wait, the monitor running.
    await ev.state('sky', 'idle', ev.seen.indexOf(watching), 60000);
    await ev.event('background', 'sky', before, (e) => e.running === 1, 60000);
    const m = ev.mark();
    const said = Date.now();
    writeFileSync(go, '');
    await ev.event('assistant_text', 'sky', m, (e) => e.text === 'the build said something', 60000);
    // The line itself, with the wait's result.
    assert.match(told.last, /build ok/);
    console.log(`a Monitor's line to the model, while it waited (from the file its command waited for): ${told.at - said} ms`);
    await ev.event('background', 'sky', m, (e) => e.running === 0, 60000);
  });
});
