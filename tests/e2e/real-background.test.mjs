// The real Claude Code CLI, spawned by ClawMux, starts work in the background and goes back to its
// `clawmux wait`: when the work ends, Claude Code queues a notice that it hands over only when a tool call
// ends, and the agent sits inside one (its wait). The hub reads the queued notice in the transcript and ends
// the wait saying so; the model takes the notice, and waits again. Prints how long the notice took from the
// job's end to the model (the goal: under a second).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startHub } from './harness.mjs';
import { bash, claudeBinary, claudeEnv, prepareHome, spawnSky, startModel } from './real-claude.mjs';

test('background work that ends while the agent waits reaches its model at once, and it waits again', async () => {
  const claude = claudeBinary();
  let ended = null;
  let told = null;
  const model = await startModel(({ last }) => {
    if (/\[MSG id:msg-[0-9a-f]{8} from:user\] start the job/.test(last)) {
      return { tool: { name: 'Bash', input: { command: 'sleep 2; echo BGDONE',
        description: 'the slow job', run_in_background: true } } };
    }
    if (/Command running in background/.test(last)) return bash(`clawmux send --to user 'started'`, 'answer');
    if (/Claude Code has something for you/.test(last) && told === null) {
      told = { at: Date.now(), last };
      return bash(`clawmux send --to user 'the job is done'`, 'report');
    }
    return bash('clawmux wait', 'wait for the next message');
  });
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  const ev = await hub.events();
  try {
    await spawnSky(hub, ev);
    let m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'start the job' });
    await ev.event('assistant_text', 'sky', m, (e) => e.text === 'started', 60000);
    // Back in its wait before the job ends: the notice has to end the wait.
    m = ev.mark();
    const done = await ev.event('assistant_text', 'sky', m, (e) => e.text === 'the job is done', 60000)
      .catch(() => ev.event('agent_message', 'sky', m, (e) => e.text === 'the job is done', 1000));
    assert.ok(done, 'the model reported the job without any message of the user');
    assert.ok(told, 'the model was told');
    // The job's last write (its output file) is when it ended.
    const output = /(\/tmp\/claude-[^\s]+\.output)/.exec(told.last)?.[1];
    assert.match(readFileSync(output, 'utf8'), /^BGDONE/);
    ended = statSync(output).mtimeMs;
    assert.match(told.last, /\[CLAWMUX\] Claude Code has something for you: Background command "the slow job" completed/);
    // Claude Code's own notice came with the wait's result.
    assert.match(told.last, /automated background-task event[\s\S]*the slow job/);
    console.log(`background job end to the model, while it waited: ${Math.round(told.at - ended)} ms`);
    // And it waits again.
    await ev.state('sky', 'idle', ev.seen.indexOf(done), 60000);
  } finally {
    if (process.env.DEBUG_BG) for (const t of model.turns) console.log('TURN', t.at, JSON.stringify(t.last).slice(0, 300));
    await hub.stop();
    await model.close();
  }
});

test('a wake-up the model scheduled reaches it in its wait (Claude Code fires one only at its prompt)', async () => {
  const claude = claudeBinary();
  let scheduled = null;
  let woke = null;
  const model = await startModel(({ last }) => {
    if (/\[MSG id:msg-[0-9a-f]{8} from:user\] check the build later/.test(last)) {
      return { tool: { name: 'ScheduleWakeup', input: { delaySeconds: 60, reason: 'the build takes a minute', prompt: 'check the build now' } } };
    }
    const set = /Next wakeup scheduled for \S+ \(in (\d+)s\)/.exec(last);
    if (set && scheduled === null) {
      scheduled = Date.now() + Number(set[1]) * 1000;
      return bash(`clawmux send --to user 'scheduled'`, 'answer');
    }
    if (/The wake-up you scheduled is due/.test(last) && woke === null) {
      woke = { at: Date.now(), last };
      return bash(`clawmux send --to user 'checked the build'`, 'report');
    }
    return bash('clawmux wait', 'wait for the next message');
  });
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  const ev = await hub.events();
  try {
    await spawnSky(hub, ev);
    let m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'check the build later' });
    await ev.event('assistant_text', 'sky', m, (e) => e.text === 'scheduled', 60000);
    assert.ok(scheduled, 'Claude Code said when');
    m = ev.mark();
    // A minute or two: Claude Code takes a minute at least, to the next whole minute.
    const reported = await ev.event('assistant_text', 'sky', m, (e) => e.text === 'checked the build', 240000);
    assert.match(woke.last, /\(the build takes a minute\)[\s\S]*here is its prompt: check the build now\./);
    console.log(`a wake-up to the model in its wait, after the time Claude Code set: ${woke.at - scheduled} ms`);
    await ev.state('sky', 'idle', ev.seen.indexOf(reported), 60000);
  } finally {
    await hub.stop();
    await model.close();
  }
});
