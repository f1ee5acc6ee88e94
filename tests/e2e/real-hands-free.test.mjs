// Hands-free with real parts: the real Claude Code CLI (pinned, from npm) with a scripted local model, two
// agents in tmux; the user's speech made by espeak-ng and heard on the device by whisper.cpp (tiny.en, the
// test model of `scripts/voice-test-model`) through `POST /api/voice/hear`, as the window's hands-free mode
// sends each utterance. Words addressed by name reach that agent; "who needs me?" is answered from the
// hub's state; a permission is answered by voice through the path a click takes, and phrases that are not
// clearly an approval are asked again and run nothing.

import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { TEST_MODEL as MODEL, startHub, withTestModel } from './harness.mjs';
import { bash, claudeBinary, claudeEnv, prepareHome, startModel } from './real-claude.mjs';

let claude;
before(() => {
  claude = claudeBinary();
  assert.ok(existsSync(MODEL), `the test model ${MODEL} is missing: run scripts/voice-test-model`);
});

/** `words` spoken by espeak-ng, as a WAV. */
function speech(dir, words) {
  const file = join(dir, `${randomUUID()}.wav`);
  execFileSync('espeak-ng', ['-w', file, words]);
  return readFileSync(file);
}

/** One utterance of hands-free mode, with `shown` on screen: what the app made of it. */
async function hear(hub, words, shown) {
  const audio = speech(hub.dir, words);
  const query = `recording=${randomUUID()}${shown ? `&shown=${shown}` : ''}`;
  const r = await fetch(`http://127.0.0.1:${hub.port}/api/voice/hear?${query}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${hub.token}`, 'Content-Type': 'audio/wav' },
    body: audio,
  });
  const heard = await r.json();
  assert.equal(r.status, 200, JSON.stringify(heard));
  return heard;
}

test('spoken words reach the agent named, "who needs me" is answered, and a permission is answered by voice only when clearly', async () => {
  // What the model was sent, and who waits for what: a test awaits what Claude read instead of polling.
  const said = [];
  const waiting = [];
  const read = (pattern, ms) => new Promise((ok, fail) => {
    if (said.some((s) => pattern.test(s))) return ok();
    const timer = setTimeout(() => fail(new Error(`the model was not sent ${pattern} within ${ms} ms`)), ms);
    waiting.push({ pattern, ok: () => { clearTimeout(timer); ok(); } });
  });
  const model = await startModel(({ last }) => {
    said.push(last);
    for (const w of waiting.splice(0)) {
      if (w.pattern.test(last)) w.ok(); else waiting.push(w);
    }
    const msg = /\[MSG id:(msg-[0-9a-f]{8}) from:user\] do: (.*)/.exec(last);
    if (msg) return bash(msg[2], 'the user asked for it');
    return bash('clawmux wait', 'wait for the next message');
  });
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky'), join(hub.data, 'agents', 'rain')]);
  withTestModel(hub.data);
  await hub.api('POST', '/api/voice/settings', { speech_to_text: 'device', local_model: 'tiny.en' });
  const ev = await hub.events();
  const work = join(hub.data, 'agents', 'sky');
  try {
    let m = ev.mark();
    hub.clawmux(['spawn', 'sky', '--permission-mode', 'default']);
    hub.clawmux(['spawn', 'rain', '--permission-mode', 'default']);
    await ev.state('sky', 'idle', m, 90000);
    await ev.state('rain', 'idle', m, 90000);

    // Nobody needs the user yet.
    let heard = await hear(hub, 'Who needs me?', 'sky');
    assert.equal(heard.done, 'said', JSON.stringify(heard));
    assert.equal(heard.say, 'Nobody needs you.');

    // Addressed by name while sky is shown: rain gets the words, as the user's voice message, once.
    m = ev.mark();
    heard = await hear(hub, 'Rain, please run the tests and tell me the result.', 'sky');
    assert.equal(heard.done, 'sent', JSON.stringify(heard));
    assert.equal(heard.session_id, 'rain', JSON.stringify(heard));
    const stored = await ev.event('user_text', 'rain', m, (e) => /run the tests/i.test(e.text), 30000);
    assert.equal(stored.voice, true);
    assert.ok(!/^rain/i.test(stored.text), `the name is taken off: ${stored.text}`);
    // The real Claude Code reads it as spoken hands-free, a spoken answer asked.
    await read(/\[VOICE id:msg-[0-9a-f]{8} from:user aloud\] .*run the tests/i, 60000);

    // A permission: what is not clearly an approval is asked again, and runs nothing.
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: `do: touch ${join(work, 'voiced')}` });
    await ev.until((x) => ev.seen.indexOf(x) >= m && x.type === 'session_status' && x.session_id === 'sky' && x.needs?.request, 60000, 'the request');
    heard = await hear(hub, 'Who needs me?', 'rain');
    assert.match(heard.say, /^sky asks to run touch .*voiced\. Allow, or deny\?$/, heard.say);
    for (const never of ['Okay, wait, don\'t run that.', 'I would not allow that.', 'Don\'t allow it.']) {
      heard = await hear(hub, never, 'sky');
      assert.equal(heard.done, 'asked_again', `${never}: ${JSON.stringify(heard)}`);
    }
    assert.equal(existsSync(join(work, 'voiced')), false, 'nothing ran');

    // "Allow.", said again while it is not heard clearly (the small test model), answers it as a click.
    for (let i = 0; i < 3 && heard.done !== 'answered'; i++) {
      heard = await hear(hub, 'Allow.', 'sky');
      assert.ok(['answered', 'asked_again'].includes(heard.done), JSON.stringify(heard));
    }
    assert.equal(heard.done, 'answered', JSON.stringify(heard));
    assert.equal(heard.decision, 'allow');
    assert.equal(heard.say, 'sky: allowed.');
    await ev.until((x) => ev.seen.indexOf(x) >= m && x.type === 'session_status' && x.session_id === 'sky' && x.state === 'idle' && !x.needs, 60000, 'sky back in its wait');
    assert.ok(existsSync(join(work, 'voiced')), 'the command allowed by voice ran');
    // The request is gone: a click now answers nothing.
    await assert.rejects(
      hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: heard.request_id, decision: 'deny' }),
      /409 .*not_pending/,
    );
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});
