// Voice in the browser UI, with real speech: espeak-ng speaks a sentence into a WAV, Chromium's fake
// microphone plays it, the UI records it (an AudioWorklet, made a WAV) while Space is held, and the hub
// hears it on the device (whisper.cpp with the test model, tiny.en) or sends it to a transcription
// service run here that checks it got real audio of the right length and format; the agent receives the
// words as a voice message. Speaking goes through a speech service run here (headless
// Chromium has no voices of its own), with markdown and code not read as symbols.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ARTIFACTS, TEST_MODEL as MODEL, openBrowser, openUi, startHub, withTestModel, within } from './harness.mjs';
import { filePart, startService } from './voice-service.mjs';

const SPEECH = join(tmpdir(), `clawmux-voice-${process.pid}.wav`);
execFileSync('espeak-ng', ['-w', SPEECH, 'please run the tests']);
const WAV = readFileSync(SPEECH);

let browser;
before(async () => {
  browser = await openBrowser(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${SPEECH}`, '--autoplay-policy=no-user-gesture-required']);
});
after(async () => { await browser?.close(); });

const RIFF = Buffer.from('RIFF');

test('held Space records real speech, the hub transcribes it, the agent gets a voice message; a failure keeps it for a retry', async () => {
  const hub = await startHub();
  const heard = [];
  let up = false;
  const whisper = await startService((path, body, headers) => {
    const file = filePart(body, headers['content-type']);
    heard.push(file);
    // Real audio, whole: a WAV of at least the second of speech it was held for (16-bit samples at the
    // device's rate, 16,000 a second at the least).
    const real = path === '/v1/audio/transcriptions' && file.subarray(0, 4).equals(RIFF) && file.length > 32000;
    if (!up) return [503, 'application/json', '{"error":"loading the model"}'];
    return real ? [200, 'application/json', '{"text":"please run the tests"}'] : [400, 'application/json', '{"error":"not audio"}'];
  });
  const { page, errors } = await openUi(browser, hub);
  try {
    await hub.api('POST', '/api/voice/settings', { transcription_url: `${whisper.url}/v1/audio/transcriptions` });
    hub.addAgent('sky');
    await page.click('[data-agent="sky"]');
    const wait = hub.wait('sky');
    await page.waitForSelector('[data-agent="sky"].indicator-idle');
    await page.click('#chats'); // the text box loses the focus: Space talks

    // The service is still loading: the recording fails, is kept, and a retry sends it again.
    await page.keyboard.down('Space');
    await page.waitForSelector('#voice-state.listening');
    assert.equal(await page.textContent('#voice-state'), 'Listening… (Escape cancels)');
    assert.equal(await page.textContent('[data-agent="sky"] .label'), 'Idle', 'listening shows as idle in the sidebar');
    await page.waitForTimeout(1500); // the length of the recording, not a wait for an event
    await page.keyboard.up('Space');
    await page.waitForSelector('.retry-recording');
    assert.match(await page.textContent('#notice'), /Not sent: .*HTTP 503/);
    await page.screenshot({ path: join(ARTIFACTS, 'voice-retry.png') });
    up = true;
    await page.click('.retry-recording');
    const printed = await within(wait.done, 60000, "the agent's wait printing the message");
    assert.match(printed, /^\[VOICE id:msg-[0-9a-f]{8} from:user\] please run the tests$/m);
    assert.equal(heard.length, 2);
    assert.ok(heard[1].equals(heard[0]), 'the retry sent the same recording');
    const history = await hub.api('GET', '/api/history/sky');
    assert.equal(history.messages.filter((m) => m.voice).length, 1, 'stored once');

    // Escape cancels: nothing is sent.
    await page.click('#mic');
    await page.waitForSelector('#voice-state.listening');
    await page.keyboard.press('Escape');
    await page.waitForSelector('#mic[aria-pressed="false"]');
    assert.equal(heard.length, 2);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
    await whisper.close();
  }
});

test('speech is heard on the device: held Space, whisper.cpp in the hub, the agent gets the words', async () => {
  const hub = await startHub({ prepare: withTestModel });
  const { page, errors } = await openUi(browser, hub);
  try {
    // The default is the device; the test model is tiny.en.
    await hub.api('POST', '/api/voice/settings', { local_model: 'tiny.en' });
    hub.addAgent('sky');
    await page.click('[data-agent="sky"]');
    const wait = hub.wait('sky');
    await page.waitForSelector('[data-agent="sky"].indicator-idle');
    await page.click('#chats');
    await page.keyboard.down('Space');
    await page.waitForSelector('#voice-state.listening');
    await page.waitForTimeout(2500); // the length of the recording, not a wait for an event
    await page.keyboard.up('Space');
    const printed = await within(wait.done, 60000, "the agent's wait printing the message");
    assert.match(printed, /^\[VOICE id:msg-[0-9a-f]{8} from:user\] .*run the tests/im);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('the voice settings download the model with progress, and a cancel keeps what came for the next try', async () => {
  // A mirror on port 0 that sends the test model slowly (64 KiB every 20 ms), so the progress shows.
  const body = readFileSync(MODEL);
  const mirror = http.createServer((req, res) => {
    res.writeHead(200, { 'Content-Length': body.length });
    let at = 0;
    const next = () => {
      if (at >= body.length || res.destroyed) return res.end();
      res.write(body.subarray(at, at + 65536));
      at += 65536;
      setTimeout(next, 20);
    };
    next();
  });
  await new Promise((ok) => mirror.listen(0, '127.0.0.1', ok));
  const hub = await startHub({ env: { CLAWMUX_MODELS_URL: `http://127.0.0.1:${mirror.address().port}` } });
  const { page, errors } = await openUi(browser, hub);
  try {
    await page.click('#voice-settings-open');
    await page.waitForSelector('#vs-model option[value="tiny.en"]', { state: 'attached' });
    assert.equal(await page.inputValue('#vs-stt'), 'device', 'on the device by default');
    assert.match(await page.textContent('#vs-model option[value="base.en"]'), /141 MiB/);
    await page.selectOption('#vs-model', 'tiny.en');
    assert.match(await page.textContent('#vs-model-state'), /Not downloaded yet/);
    await page.click('#vs-download');
    await page.waitForFunction(() => document.querySelector('#vs-progress').value > 0.01);
    assert.match(await page.textContent('#vs-model-state'), /Downloading… [\d.]+ of 74\.1 MiB/);
    await page.screenshot({ path: join(ARTIFACTS, 'voice-download.png') });
    await page.click('#vs-download-cancel');
    await page.waitForSelector('#vs-model-state.failed');
    assert.match(await page.textContent('#vs-model-state'), /cancelled at \d+ of 77704715 bytes; it resumes from there/);
    assert.equal(await page.textContent('#vs-download'), 'Resume the download');
    assert.ok(existsSync(join(hub.data, 'models', 'ggml-tiny.en.bin.part')), 'the partial file is kept');
    assert.ok(!existsSync(join(hub.data, 'models', 'ggml-tiny.en.bin')), 'no model file');
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
    mirror.closeAllConnections();
    mirror.close();
  }
});

test('answers are read aloud in turn, without markdown symbols; stop, and a clear message when there is no voice', async () => {
  const hub = await startHub();
  const kokoro = await startService(() => [200, 'audio/wav', WAV]);
  const { page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    await page.click('[data-agent="sky"]');
    await page.click('#act-speak');
    assert.equal(await page.getAttribute('#act-speak', 'aria-pressed'), 'true');

    // No voices in headless Chromium and no speech service: said plainly, and the message still arrives.
    hub.clawmux(['send', '--to', 'user', 'First answer.'], 'sky');
    await page.waitForFunction(() => /No voice to read aloud with here/.test(document.querySelector('#notice').textContent));

    await hub.api('POST', '/api/voice/settings', { speech_url: `${kokoro.url}/v1/audio/speech` });
    hub.clawmux(['send', '--to', 'user', '## Done\nThe **build** is `green`:\n```\ncargo test\n```\nSee [the log](http://x.example/log).'], 'sky');
    hub.clawmux(['send', '--to', 'user', 'Second message, queued behind the first.'], 'sky');
    await page.waitForSelector('#speak-stop:not([hidden])');
    assert.equal(await page.textContent('#voice-state'), 'Speaking…');
    await page.screenshot({ path: join(ARTIFACTS, 'voice-speaking.png') });
    await page.waitForFunction(() => document.querySelectorAll('.msg.kind-assistant').length === 3);
    assert.equal(kokoro.seen.length, 1, 'one text at a time');
    assert.equal(JSON.parse(kokoro.seen[0].body).input, 'Done The build is green: (code block) See the log.');
    await page.click('#speak-skip');
    await kokoro.requests(2);
    assert.equal(JSON.parse(kokoro.seen[1].body).input, 'Second message, queued behind the first.');
    await page.click('#speak-stop');
    await page.waitForSelector('#speak-stop', { state: 'hidden' });
    assert.equal(await page.textContent('#voice-state'), '');
    assert.equal(await page.evaluate(() => window.clawmux.speaker.speaking), false);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
    await kokoro.close();
  }
});

test('with voice mode on, a question an agent asks is said aloud when it arrives', async () => {
  const hub = await startHub();
  const kokoro = await startService(() => [200, 'audio/wav', WAV]);
  const { page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    await hub.api('POST', '/api/voice/settings', { speech_url: `${kokoro.url}/v1/audio/speech` });
    await page.reload();
    await page.waitForSelector('#connection.online');
    await page.check('#voice-mode');
    // The agent asks through its permission hook, which waits for the answer.
    const hook = hub.hook('sky', 'permission', {
      hook_event_name: 'PermissionRequest', tool_name: 'AskUserQuestion',
      tool_input: { questions: [{ question: 'Which branch should I use?', header: 'Branch', multiSelect: false, options: [{ label: 'main' }, { label: 'dev' }] }] },
    });
    // Asked a sentence first, then the rest (the sooner the first words are heard).
    await kokoro.requests(2);
    assert.equal(JSON.parse(kokoro.seen[0].body).input, 'sky needs you.');
    assert.equal(JSON.parse(kokoro.seen[1].body).input, 'Question Which branch should I use?');
    const sky = (await hub.api('GET', '/api/sessions')).find((s) => s.session_id === 'sky');
    await hub.api('POST', '/api/command', { command: 'answer', session_id: 'sky', request_id: sky.needs.request.id, decision: 'allow', answers: { 'Which branch should I use?': 'dev' } });
    const printed = JSON.parse(await hook);
    assert.equal(printed.hookSpecificOutput.decision.updatedInput.answers['Which branch should I use?'], 'dev');
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
    await kokoro.close();
  }
});

for (const [what, flags, said] of [
  ['without a microphone', [], /^No microphone: /], // no fake device: this machine has none
  ['whose user refuses the microphone', ['--use-fake-device-for-media-stream', '--deny-permission-prompts'], /^The microphone was not allowed/],
]) {
  test(`a browser ${what} says so when Talk is pressed, and nothing is recorded or sent`, async () => {
    const hub = await startHub();
    const other = await openBrowser(flags);
    const { page } = await openUi(other, hub);
    try {
      hub.addAgent('sky');
      await page.click('[data-agent="sky"]');
      await page.click('#mic');
      await page.waitForFunction(() => document.querySelector('#notice').textContent !== '');
      assert.match(await page.textContent('#notice'), said);
      await page.waitForSelector('#mic[aria-pressed="false"]');
      assert.equal(await page.textContent('#voice-state'), '', 'not listening');
      assert.equal((await hub.api('GET', '/api/history/sky')).messages.length, 0, 'nothing sent');
    } finally {
      await other.close();
      hub.stop();
    }
  });
}
