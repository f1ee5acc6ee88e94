// The real app window: the desktop app under Xvfb, driven through tauri-driver and WebKitWebDriver, with a
// session bus and a notification daemon (dunst) so the idle notification is really sent and seen
// (desktop-harness.mjs starts them).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import {
  APP, APP_ARGS, BUS, DISPLAY, OPENED, PICK, SPEECH, SSH_CONFIG, WINDOW_STATE, browser, children, data, dir, launchApp, listening,
  notifications, painted, quitApp, start, tray, until, useApp, windowHub,
} from './desktop-harness.mjs';
import { ARTIFACTS, BIN, ROOT, STATUS_LINE, startHub, withTestModel, withTestVoice } from './harness.mjs';
import { sshKeys, startSshd } from './sshd.mjs';
import { fileLines, png } from './files.mjs';
import { filePart, readWav, startService } from './voice-service.mjs';

useApp();

/** `clawmux wait` run as `agent` (`env` gives an agent's environment): `.printed` is what it printed so far. */
function waitAs(env, agent) {
  const wait = spawn(BIN, ['wait'], { env: env(agent), stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(wait);
  const seen = { printed: '' };
  wait.stdout.on('data', (d) => { seen.printed += d; });
  return seen;
}

/** The text of the window's terminal panel: its scrollback and screen, one line per row. */
function terminalText() {
  return browser.execute(() => {
    const b = window.clawmux.terminal.term?.buffer.active;
    if (!b) return '';
    const lines = [];
    for (let i = 0; i < b.length; i++) lines.push(b.getLine(i).translateToString(true));
    return lines.join('\n');
  });
}

test('the app window runs the hub, shows agents, sends a message and notifies when an agent is done', async () => {
  const online = await browser.$('#connection.online');
  await online.waitForExist({ timeout: 20000 });
  const address = await (await browser.$('#hub-address')).getText();
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(address)?.[1]);
  assert.ok(port, `the window shows the hub's address: ${address}`);
  const env = (agent) => ({
    PATH: process.env.PATH, HOME: dir, CLAWMUX_HOME: data, CLAWMUX_PORT: String(port),
    ...(agent ? { CLAWMUX_SESSION_ID: agent, CLAWMUX_WORK_DIR: join(dir, agent) } : {}),
  });
  const clawmux = (args, agent) => execFileSync(BIN, args, { env: env(agent), encoding: 'utf8' });
  for (const name of ['sky', 'moon']) clawmux(['agent', 'add', name, '--work-dir', join(dir, name)]);

  const sky = await browser.$('[data-agent="sky"]');
  await sky.waitForExist({ timeout: 10000 });
  await sky.click();
  const wait = waitAs(env, 'sky');
  await (await browser.$('[data-agent="sky"].indicator-idle')).waitForExist({ timeout: 10000 });

  const input = await browser.$('#input');
  await input.setValue('Hello from the app window');
  await browser.keys('Enter');
  await until('the agent got the message', () => /\[MSG id:msg-[0-9a-f]{8} from:user\] Hello from the app window/.test(wait.printed));
  const id = /id:(msg-[0-9a-f]{8})/.exec(wait.printed)[1];
  await (await browser.$('[data-agent="sky"].indicator-working')).waitForExist({ timeout: 10000 });
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-working.png'));

  // Look at another agent, so sky is not on screen when it finishes.
  await (await browser.$('[data-agent="moon"]')).click();
  clawmux(['send', '--to', 'user', '--re', id, 'All done: the **build** is green.'], 'sky');
  const next = waitAs(env, 'sky');
  await (await browser.$('[data-agent="sky"].indicator-idle')).waitForExist({ timeout: 10000 });
  await until('the notification on the session bus', () => notifications.includes('sky is waiting for you'), 10000);
  assert.match(notifications, /All done: the \*\*build\*\* is green\./);
  const count = () => notifications.split('sky is waiting for you').length - 1;
  assert.equal(count(), 1, 'one notification for one transition');
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-idle.png'));

  // With sky on screen in the focused window, its finishing raises no notification. Notifications go out
  // in order, so once moon's (finishing off screen) has arrived, sky's would have arrived before it.
  await (await browser.$('[data-agent="sky"]')).click();
  assert.equal(await browser.execute(() => document.hasFocus()), true, 'the window has the focus');
  await (await browser.$('#input')).setValue('One more thing');
  await browser.keys('Enter');
  await until('sky got the second message', () => /One more thing/.test(next.printed));
  await (await browser.$('[data-agent="sky"].indicator-working')).waitForExist({ timeout: 10000 });
  clawmux(['send', '--to', 'user', 'Second thing done, while you watched.'], 'sky');
  children.push(spawn(BIN, ['wait'], { env: env('sky'), stdio: 'ignore' }));
  await (await browser.$('[data-agent="sky"].indicator-idle')).waitForExist({ timeout: 10000 });

  const moonWait = spawn(BIN, ['wait'], { env: env('moon'), stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(moonWait);
  const moonDone = new Promise((ok) => moonWait.once('exit', ok));
  await (await browser.$('[data-agent="moon"].indicator-idle')).waitForExist({ timeout: 10000 });
  const token = readFileSync(join(data, 'token'), 'utf8').trim();
  await fetch(`http://127.0.0.1:${port}/api/sessions/moon/messages`, {
    method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ text: 'moon, go' }),
  });
  await moonDone;
  await (await browser.$('[data-agent="moon"].indicator-working')).waitForExist({ timeout: 10000 });
  clawmux(['send', '--to', 'user', 'Moon finished.'], 'moon');
  children.push(spawn(BIN, ['wait'], { env: env('moon'), stdio: 'ignore' }));
  await until('the notification for moon', () => notifications.includes('moon is waiting for you'), 10000);
  assert.equal(count(), 1, 'no notification for the agent on screen in the focused window');
  assert.doesNotMatch(notifications, /while you watched/);

  // An agent off screen starts to need the user (a permission dialog in its terminal): one notification
  // with the reason, and the sidebar paints it.
  const hook = (body) => fetch(`http://127.0.0.1:${port}/api/hooks/tool-status`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'ClawMux-Session': 'moon' },
    body: JSON.stringify(body),
  });
  await hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm publish' }, tool_use_id: 't1' });
  await hook({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'npm publish' } });
  await until('the needs-you notification', () => notifications.includes('moon needs you'), 10000);
  assert.match(notifications, /Permission: Running npm publish/);
  await (await browser.$('[data-agent="moon"].needs-you')).waitForExist({ timeout: 10000 });
});

test('a permission is answered from its notification, and clicking a notification opens its agent', async () => {
  const { api, env } = await windowHub();
  await (await browser.$('[data-agent="sky"]')).click();
  // moon asks through its PermissionRequest hook, the `clawmux hook permission` command Claude Code runs,
  // which waits for the answer.
  const hook = spawn(BIN, ['hook', 'permission'], { env: env('moon'), stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(hook);
  let decided = '';
  hook.stdout.on('data', (d) => { decided += d; });
  const exited = new Promise((ok) => hook.on('exit', ok));
  hook.stdin.end(JSON.stringify({ hook_event_name: 'PermissionRequest', session_id: 'c-moon', cwd: join(dir, 'moon'), tool_name: 'Bash', tool_input: { command: 'git push --force' } }));
  await until('the notification with its actions', () => notifications.includes('Running git push --force') && /"allow"[\s\S]*"Allow"/.test(notifications.slice(notifications.indexOf('Running git push --force') - 600)), 10000);
  // The user picks Allow on the notification (dunst's menu of its actions).
  writeFileSync(PICK, 'Allow ');
  execFileSync('dunstctl', ['context'], { env: { PATH: process.env.PATH, DISPLAY, DBUS_SESSION_BUS_ADDRESS: BUS } });
  assert.equal(await exited, 0);
  assert.deepEqual(JSON.parse(decided).hookSpecificOutput.decision, { behavior: 'allow' });
  const moon = (await api('GET', '/api/sessions')).find((s) => s.session_id === 'moon');
  assert.equal(moon.needs?.request, undefined, 'answered once, the request is gone');

  // A click on a notification (its default action) brings its agent on screen.
  const asking = spawn(BIN, ['hook', 'tool-status'], { env: env('moon'), stdio: ['pipe', 'ignore', 'inherit'] });
  asking.stdin.end(JSON.stringify({ hook_event_name: 'PermissionRequest', session_id: 'c-moon', cwd: join(dir, 'moon'), tool_name: 'Bash', tool_input: { command: 'rm -rf dist' } }));
  await until('the next notification', () => notifications.includes('Running rm -rf dist'), 10000);
  writeFileSync(PICK, 'Open \\(moon needs you\\)');
  execFileSync('dunstctl', ['context'], { env: { PATH: process.env.PATH, DISPLAY, DBUS_SESSION_BUS_ADDRESS: BUS } });
  await browser.waitUntil(async () => (await (await browser.$('#chat-title')).getText()) === 'moon', { timeout: 10000, timeoutMsg: 'the click did not open moon' });
});

test('in the window, a click on the indicator explains it, and "This looks wrong" saves a redacted report', async () => {
  // moon still needs a permission (the last hook of the test before).
  await (await browser.$('[data-agent="moon"].needs-you')).waitForExist({ timeout: 10000 });
  await (await browser.$('[data-agent="moon"] .dot')).click();
  const state = await browser.$('#explain[data-agent="moon"] [data-field="state"]');
  await state.waitForExist({ timeout: 10000 });
  assert.equal(await state.getText(), 'moon: Needs you');
  assert.match(await (await browser.$('#explain [data-field="needs-set-by"]')).getText(), /Claude Code opened a permission dialog \(PermissionRequest\)/);
  assert.match(await (await browser.$('#explain [data-field="needs-ends"]')).getText(), /the end of tool call t1 \(Bash\): its PostToolUse or PostToolUseFailure/);
  await (await browser.$('#explain .explain-wrong')).click();
  const preview = await browser.$('#explain [data-field="report-preview"]');
  await browser.waitUntil(async () => (await preview.getText()).includes('"case"'), { timeout: 10000, timeoutMsg: 'no preview' });
  const text = await preview.getText();
  assert.ok(text.includes('‹redacted›') && !text.includes('rm -rf dist'), 'redacted before anything is written');
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-explain.png'));
  await (await browser.$('#explain [data-action="saveReport"]')).click();
  const saved = await browser.$('#explain [data-field="report-saved"]');
  await browser.waitUntil(async () => (await saved.getText()).startsWith('Saved: '), { timeout: 10000, timeoutMsg: 'not saved' });
  const path = /^Saved: (\S+)\./.exec(await saved.getText())[1];
  assert.ok(path.startsWith(join(data, 'reports')));
  assert.ok(!readFileSync(path, 'utf8').includes('rm -rf dist'));
  await (await browser.$('#explain [data-action="close"]')).click();
});

test('the window reads an answer aloud with its own voices while the device\'s is not downloaded, offers it, and says when it is done', async () => {
  const { clawmux } = await windowHub();
  await (await browser.$('[data-agent="sky"]')).click();
  const voices = await browser.execute(() => new Promise((ok) => {
    if (speechSynthesis.getVoices().length) ok(speechSynthesis.getVoices().length);
    speechSynthesis.onvoiceschanged = () => ok(speechSynthesis.getVoices().length);
    setTimeout(() => ok(speechSynthesis.getVoices().length), 5000);
  }));
  assert.ok(voices > 0, 'WebKitGTK has voices');
  await (await browser.$('#act-speak')).click();
  assert.equal(await (await browser.$('#act-speak')).getAttribute('aria-pressed'), 'true');
  clawmux('sky', ['send', '--to', 'user', 'The **tests** pass. `cargo test` is green.']);
  const state = await browser.$('#voice-state');
  await browser.waitUntil(async () => (await state.getText()) === 'Speaking…', { timeout: 10000, timeoutMsg: 'never spoke' });
  assert.equal(await browser.execute(() => speechSynthesis.speaking), true, 'the webview is speaking');
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-speaking.png'));
  await browser.waitUntil(async () => (await state.getText()) === '', { timeout: 20000, timeoutMsg: 'never finished speaking' });
  assert.match(await (await browser.$('#notice')).getText(), /^Reading aloud with this window's voice until the device's own is downloaded \(60 MiB, once\)/);
  assert.equal(await (await browser.$('#notice .get-voice')).getText(), 'Get the voice', 'the device\'s voice offered');
});

test('each agent speaks with a voice of its own in the window, and a voice chosen for one in the settings is its voice from then on', async () => {
  const { clawmux } = await windowHub();
  // What the webview is asked to say, and how: every utterance's text, voice and pitch.
  await browser.execute(() => {
    window.spoken = [];
    const speak = speechSynthesis.speak.bind(speechSynthesis);
    speechSynthesis.speak = (u) => { window.spoken.push({ text: u.text, voice: u.voice?.name ?? null, pitch: u.pitch }); speak(u); };
    localStorage.setItem('clawmux.readAloud', JSON.stringify(['sky', 'moon']));
  });
  const said = async (words) => {
    let spoken = [];
    await browser.waitUntil(async () => (spoken = await browser.execute(() => window.spoken)).some((s) => s.text.includes(words)), { timeout: 20000 })
      .catch(async () => assert.fail(`never said "${words}": ${JSON.stringify(spoken)} ${JSON.stringify(await browser.execute(() => ({ queue: window.clawmux.speaker.queue, speaking: speechSynthesis.speaking, pending: speechSynthesis.pending })))}`));
    // Heard: the user skips to the next (the webview's voices take seconds a sentence here).
    await browser.execute(() => window.clawmux.speaker.skip());
    return spoken.find((s) => s.text.includes(words));
  };
  clawmux('sky', ['send', '--to', 'user', 'Sky here: the build is green.']);
  const sky = await said('Sky here');
  clawmux('moon', ['send', '--to', 'user', 'Moon here: the docs are written.']);
  const moon = await said('Moon here');
  clawmux('sky', ['send', '--to', 'user', 'Sky again: merged.']);
  const skyAgain = await said('Sky again');
  assert.ok(sky.voice, 'a voice of the webview\'s is chosen for sky');
  assert.deepEqual([skyAgain.voice, skyAgain.pitch], [sky.voice, sky.pitch], 'sky keeps its voice');
  assert.notDeepEqual([moon.voice, moon.pitch], [sky.voice, sky.pitch], 'moon does not sound like sky');

  // The user chooses the window's voices for good; the settings list each agent with its automatic voice
  // among them, and one chosen for sky is sky's from then on.
  await (await browser.$('#voice-settings-open')).click();
  const engine = await browser.$('#vs-tts');
  await engine.waitForDisplayed({ timeout: 5000 });
  await engine.selectByAttribute('value', 'window');
  const select = await browser.$('#vs-agent-voices select[data-agent="sky"]');
  await select.waitForDisplayed({ timeout: 5000 });
  assert.match(await (await select.$('option[value=""]')).getText(), new RegExp(`^Automatic: ${sky.voice.replace(/[()]/g, '.')}, pitch ${Math.round(sky.pitch * 10) / 10}`));
  const other = await browser.execute(() => speechSynthesis.getVoices().map((v) => v.name)).then((names) => names.find((n) => n !== sky.voice));
  await select.selectByAttribute('value', other);
  await (await browser.$('#voice-settings button[type=submit]')).click();
  await browser.waitUntil(async () => !(await (await browser.$('#voice-settings')).isDisplayed()), { timeout: 5000, timeoutMsg: 'the form stayed open' });
  clawmux('sky', ['send', '--to', 'user', 'Sky once more: deployed.']);
  const chosen = await said('Sky once more');
  assert.deepEqual([chosen.voice, chosen.pitch], [other, 1], "the voice chosen, at its own pitch");
  await browser.execute(() => { localStorage.removeItem('clawmux.agentVoices'); localStorage.setItem('clawmux.readAloud', JSON.stringify(['sky'])); });
  await browser.waitUntil(() => browser.execute(() => !speechSynthesis.speaking && !window.clawmux.speaker.speaking), { timeout: 30000, timeoutMsg: 'still speaking' });
});

test('push-to-talk in the window: the app records real speech, the agent gets it as a voice message once; a failure keeps it for a retry; Escape keeps nothing', async (t) => {
  const { api } = await windowHub();
  // The transcription service checks it got the speech itself: a WAV of espeak's format that starts with
  // espeak's samples, unchanged, and is as long as the button was held. The first request fails.
  const spoken = readWav(readFileSync(SPEECH));
  const spokenMs = (spoken.samples.length * 1000) / spoken.rate;
  const verdicts = [];
  const whisper = await startService((path, body, headers) => {
    const got = readWav(filePart(body, headers['content-type']));
    const same = got && got.format === 1 && got.channels === 1 && got.bits === 16 && got.rate === spoken.rate
      && got.samples.length >= spoken.samples.length
      && spoken.samples.every((v, i) => got.samples[i] === v);
    verdicts.push(same ? `speech, ${Math.round((got.samples.length * 1000) / got.rate)} ms` : 'not the speech');
    if (!same) return [400, 'application/json', '{"error":"not the speech"}'];
    if (verdicts.length === 1) return [503, 'text/plain', 'loading the model'];
    return [200, 'application/json', JSON.stringify({ text: 'please run the tests' })];
  });
  t.after(() => whisper.close());
  await api('POST', '/api/voice/settings', { transcription_url: `${whisper.url}/v1/audio/transcriptions` });
  await (await browser.$('[data-agent="sky"]')).click();
  const state = await browser.$('#voice-state');
  const mic = await browser.$('#mic');

  await mic.click();
  await browser.waitUntil(async () => (await state.getText()).startsWith('Listening'), { timeout: 5000, timeoutMsg: 'never listened' });
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-listening.png'));
  // Held for the whole sentence (the file plays in real time), then released.
  await new Promise((ok) => setTimeout(ok, spokenMs + 300));
  await mic.click();
  await whisper.requests(1);
  const retry = await browser.$('.retry-recording');
  await retry.waitForExist({ timeout: 10000 });
  assert.match(await (await browser.$('#notice')).getText(), /Not sent: .*503/);
  assert.equal(readdirSync(join(data, 'voice')).length, 1, 'the recording is kept until it is stored');
  await retry.click();
  await whisper.requests(2);
  const said = await browser.$('article.kind-user*=please run the tests');
  await said.waitForExist({ timeout: 10000 });
  assert.deepEqual(verdicts.map((v) => v.split(',')[0]), ['speech', 'speech'], verdicts.join('; '));
  const held = Number(/(\d+) ms/.exec(verdicts[1])[1]);
  assert.ok(held >= spokenMs + 250 && held < spokenMs + 3000, `recorded ${held} ms for ${Math.round(spokenMs)} ms of speech held ${Math.round(spokenMs + 300)} ms`);
  const page = await api('GET', '/api/history/sky?limit=20');
  const voiced = page.messages.filter((m) => m.voice && m.text === 'please run the tests');
  assert.equal(voiced.length, 1, 'stored once, though sent twice');
  // Shown as the user's voice message (the article may exist a frame before it is drawn: WebDriver reads
  // no text of what is not displayed yet).
  const meta = await said.$('.meta');
  await browser.waitUntil(async () => /You \(voice\)/.test(await meta.getText()), { timeout: 5000, timeoutMsg: 'the message is not shown as the user\'s voice message' });
  assert.deepEqual(readdirSync(join(data, 'voice')), [], 'the kept recording is gone once stored');

  // Escape cancels: nothing is sent or kept, and the next press records afresh.
  for (let i = 0; i < 2; i++) {
    await mic.click();
    await browser.waitUntil(async () => (await state.getText()).startsWith('Listening'), { timeout: 5000, timeoutMsg: 'never listened' });
    await browser.keys('Escape');
    await browser.waitUntil(async () => (await state.getText()) === '', { timeout: 5000, timeoutMsg: 'Escape did not stop listening' });
  }
  assert.equal(await (await browser.$('#notice')).getText(), '', 'no error: the second press was not refused as a recording under way');
  assert.equal(whisper.seen.length, 2, 'nothing sent after Escape');
  assert.deepEqual(readdirSync(join(data, 'voice')), []);
});

/** Speech heard on the device for test `t`: the test model (tiny.en; scripts/voice-test-model) as a
 * finished download leaves it, chosen in the settings; the user's own service, as an earlier test set it,
 * comes back after. */
async function deviceVoice(t, api) {
  withTestModel(data);
  t.after(() => rmSync(join(data, 'models'), { recursive: true, force: true }));
  const before = await api('GET', '/api/voice/settings');
  t.after(() => api('POST', '/api/voice/settings', { transcription_url: before.transcription_url }));
  await api('POST', '/api/voice/settings', { speech_to_text: 'device', local_model: 'tiny.en' });
}

test('voice on the device in the window: Talk held, whisper.cpp in the app hears it, the agent\'s wait prints the words', async (t) => {
  const { api, env } = await windowHub();
  await deviceVoice(t, api);
  // The settings form shows where speech is heard, and that the model is here.
  await (await browser.$('#voice-settings-open')).click();
  await browser.waitUntil(async () => /Downloaded/.test(await (await browser.$('#vs-model-state')).getText()), { timeout: 5000, timeoutMsg: 'the model is not shown as downloaded' });
  assert.equal(await (await browser.$('#vs-stt')).getValue(), 'device');
  await (await browser.$('#vs-cancel')).click();

  await (await browser.$('[data-agent="sky"]')).click();
  const wait = waitAs(env, 'sky');
  await (await browser.$('[data-agent="sky"].indicator-idle')).waitForExist({ timeout: 10000 });
  const spoken = readWav(readFileSync(SPEECH));
  const state = await browser.$('#voice-state');
  const mic = await browser.$('#mic');
  await mic.click();
  await browser.waitUntil(async () => (await state.getText()).startsWith('Listening'), { timeout: 5000, timeoutMsg: 'never listened' });
  await new Promise((ok) => setTimeout(ok, (spoken.samples.length * 1000) / spoken.rate + 300));
  const released = Date.now();
  await mic.click();
  await until('the agent printed the words', () => /\[VOICE id:msg-[0-9a-f]{8} from:user\] .*run the tests/i.test(wait.printed), 20000);
  console.log(`Talk released to the words printed by the agent's wait (tiny.en, in the app): ${Date.now() - released} ms`);
});

/**
 * A WAV at espeak's rate: a quiet room (white noise about 50 dB under the voice) for `lead` seconds, then
 * each of `phrases` followed by `gap` seconds of the room. Returns where each voice starts and ends, in
 * seconds.
 */
function roomWithWords(file, phrases, lead, gap) {
  let rate = 0;
  const room = (seconds) => Array.from({ length: Math.round(rate * seconds) }, () => Math.round((Math.random() - 0.5) * 200));
  const parts = [];
  const voices = [];
  for (const words of phrases) {
    execFileSync('espeak-ng', ['-w', file, words]);
    const spoken = readWav(readFileSync(file));
    if (!rate) { rate = spoken.rate; parts.push(...room(lead)); }
    const at = parts.length;
    const first = spoken.samples.findIndex((x) => Math.abs(x) > 1000);
    const last = spoken.samples.findLastIndex((x) => Math.abs(x) > 1000);
    voices.push({ start: (at + first) / rate, end: (at + last) / rate });
    parts.push(...spoken.samples, ...room(gap));
  }
  writeWav(file, rate, Int16Array.from(parts));
  return voices;
}

/** Writes 16-bit mono `samples` at `rate` as a WAV file. */
function writeWav(file, rate, samples) {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0); header.writeUInt32LE(36 + samples.length * 2, 4); header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16); header.writeUInt16LE(1, 20); header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24); header.writeUInt32LE(rate * 2, 28); header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34); header.write('data', 36); header.writeUInt32LE(samples.length * 2, 40);
  writeFileSync(file, Buffer.concat([header, Buffer.from(samples.buffer)]));
}

test('hands-free in the window: the app listens, the user speaking stops the device\'s voice at once, the words addressed by name reach that agent, "who needs me?" is answered with it', async (t) => {
  // The app listens to this file as its microphone: a quiet room, "Sky, please run the tests.", the room,
  // "Who needs me?", the room.
  const file = join(dir, 'hands-free.wav');
  // Four seconds of room first: the device's voice (loaded and speaking in the debug app, on a busy
  // machine) must be playing before the user speaks over it.
  const [addressed, asked] = roomWithWords(file, ['Sky, please run the tests.', 'Who needs me?'], 4.0, 3.0);
  const onset = addressed.start;
  // Speech heard on the device, and the device's voice here (as its download leaves it): the window
  // loads with the settings' default, which speaks with it.
  const { api: running } = await windowHub();
  const { transcription_url } = await running('GET', '/api/voice/settings');
  await running('POST', '/api/voice/settings', { transcription_url, speech_to_text: 'device', local_model: 'tiny.en' });
  withTestVoice(data);
  await quitApp();
  await launchApp(['--data-dir', data, '--microphone-file', file]);
  t.after(async () => {
    await quitApp();
    await launchApp(APP_ARGS);
    await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  });
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const { api, env } = await windowHub();
  await deviceVoice(t, api);
  // Moon is on screen; the words name sky.
  await (await browser.$('[data-agent="moon"]')).click();
  const wait = waitAs(env, 'sky');
  await (await browser.$('[data-agent="sky"].indicator-idle')).waitForExist({ timeout: 10000 });
  assert.equal(await (await browser.$('#hands-free-state')).getText(), '', 'off by default');

  // The app is reading something long aloud when hands-free starts; the user's voice stops it.
  const started = await browser.execute(() => {
    const { speaker, handsFree } = window.clawmux;
    const stop = speaker.stop.bind(speaker);
    speaker.stop = () => { window.stoppedAt ??= Date.now(); stop(); };
    // When the microphone runs (the file starts playing just before): the other bound of the delay.
    const backend = handsFree.backend;
    const listen = backend.listen;
    handsFree.backend = new Proxy(backend, {
      get: (target, key) => (key === 'listen'
        ? async (on) => { const ears = await listen(on); window.listeningAt = Date.now(); return ears; }
        : typeof target[key] === 'function' ? target[key].bind(target) : target[key]),
    });
    // When the device's voice starts saying the app's answer to "who needs me?": its first word. The
    // audio the hub made for each text, known by its length when it is played.
    window.made = [];
    const speech = speaker.backend.speech.bind(speaker.backend);
    speaker.backend.speech = async (text, variant) => {
      const asked = Date.now();
      const bytes = await speech(text, variant);
      const wav = new DataView(bytes);
      window.made.push({ text, asked, got: Date.now(), seconds: wav.getUint32(40, true) / 2 / wav.getUint32(24, true) });
      return bytes;
    };
    const start = AudioBufferSourceNode.prototype.start;
    AudioBufferSourceNode.prototype.start = function (...args) {
      const made = window.made.find((m) => Math.abs(m.seconds - this.buffer.duration) < 0.01);
      if (made && /needs you/i.test(made.text)) window.answeredAt ??= Date.now();
      if (made) window.playedAt ??= Date.now();
      return start.apply(this, args);
    };
    speaker.enqueue('This is a long answer read aloud, sentence after sentence, so that it is still being read when the user speaks over it. '.repeat(4));
    const at = Date.now();
    document.getElementById('hands-free').click();
    return { at, speaking: handsFree.speaker.speaking };
  });
  assert.equal(started.speaking, true, 'the app speaks');
  await browser.waitUntil(async () => /Listening/.test(await (await browser.$('#hands-free-state')).getText()), { timeout: 10000, timeoutMsg: 'never listened' });
  await browser.waitUntil(() => browser.execute(() => window.playedAt !== undefined), { timeout: 10000, timeoutMsg: 'the device\'s voice never played' });
  assert.equal(await browser.execute(() => speechSynthesis.speaking), false, 'the device\'s voice speaks, not the webview\'s');
  await browser.waitUntil(() => browser.execute(() => window.stoppedAt !== undefined), { timeout: 10000, timeoutMsg: 'the user spoke and the app went on' });
  const { stoppedAt, listeningAt, playedAt } = await browser.execute(() => ({ stoppedAt: window.stoppedAt, listeningAt: window.listeningAt, playedAt: window.playedAt }));
  assert.ok(playedAt < stoppedAt, `the device's voice was playing (from ${playedAt}) when the user's voice stopped it (${stoppedAt})`);
  const bargeIn = Math.round(stoppedAt - started.at - onset * 1000);
  const atLeast = Math.round(stoppedAt - listeningAt - onset * 1000);
  console.log(`barge-in in the window: the voice's start in the microphone file to the app's speech stopped: ${atLeast}-${bargeIn} ms (counted from the microphone running, and from the toggle's click)`);
  assert.ok(bargeIn > 0, `the speech stopped ${-bargeIn} ms before the voice began`);
  assert.ok(bargeIn < 1000, `the speech stopped ${bargeIn} ms after the voice began`);
  await browser.waitUntil(() => browser.execute(() => !window.clawmux.speaker.speaking), { timeout: 2000, timeoutMsg: 'the app still speaks' });

  await until('sky\'s wait printed the words', () => /\[VOICE id:msg-[0-9a-f]{8} from:user aloud\] .*run the tests?\b/i.test(wait.printed), 30000)
    .catch(async (e) => {
      const shown = await browser.execute(() => [document.getElementById('hands-free-state').textContent, document.getElementById('notice').textContent]);
      throw new Error(`${e.message}: the window shows ${JSON.stringify(shown)}, sky's wait printed ${JSON.stringify(wait.printed)}`);
    });
  assert.doesNotMatch(wait.printed, /from:user( aloud)?\] sky/i, 'the name is taken off');
  let state = '';
  await browser.waitUntil(async () => /run the tests?\b/i.test((state = await (await browser.$('#hands-free-state')).getText())), { timeout: 5000 })
    .catch(() => assert.fail(`the words heard are not shown: ${state}`));
  // "Who needs me?": answered from the hub's state, the first word spoken by the device's voice.
  await browser.waitUntil(() => browser.execute(() => window.answeredAt !== undefined), { timeout: 30000, timeoutMsg: 'no spoken answer to "who needs me?"' });
  const answeredAt = await browser.execute(() => window.answeredAt);
  const answer = await browser.execute(() => window.made.find((m) => /needs you/i.test(m.text)));
  console.log(`  of it: "${answer.text}" asked of the device's voice ${Math.round(answer.asked - listeningAt - asked.end * 1000)} ms after the voice ended, made in ${answer.got - answer.asked} ms (${answer.seconds.toFixed(2)} s of speech), playing ${answeredAt - answer.got} ms later`);
  console.log(`"who needs me?" in the window: the end of the voice to the first word of the answer: ${Math.round(answeredAt - listeningAt - asked.end * 1000)}-${Math.round(answeredAt - started.at - asked.end * 1000)} ms (0.7 s of it the detector's quiet; tiny.en on the device, the device's voice)`);
  assert.deepEqual(readdirSync(join(data, 'voice')), [], 'no utterance is kept once heard');
  await (await browser.$('#hands-free-mute')).click();
  assert.match(await (await browser.$('#hands-free-state')).getText(), /^Muted/);
  await (await browser.$('#hands-free')).click();
  assert.equal(await (await browser.$('#hands-free-state')).getText(), '');
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-hands-free.png'));
});

test('a speech service set in the voice settings form reads the answers instead of the voices of the window', async (t) => {
  const { api, clawmux } = await windowHub();
  const asked = [];
  const kokoro = await startService((path, body) => {
    asked.push({ path, ...JSON.parse(body) });
    return [200, 'audio/wav', readFileSync(SPEECH)];
  });
  t.after(() => kokoro.close());
  await (await browser.$('#voice-settings-open')).click();
  await (await browser.$('#vs-tts')).waitForDisplayed({ timeout: 5000 });
  await (await browser.$('#vs-tts')).selectByAttribute('value', 'service');
  const speechUrl = await browser.$('#vs-speech');
  await speechUrl.waitForDisplayed({ timeout: 5000 });
  await browser.waitUntil(async () => /\/v1\/audio\/transcriptions$/.test(await (await browser.$('#vs-transcription')).getValue()),
    { timeout: 5000, timeoutMsg: 'the form shows the saved transcription service' });
  const save = await browser.$('#voice-settings button[type=submit]');
  // A bad address is refused with the reason, the form stays open and nothing is saved.
  await speechUrl.setValue('https://speech.example/v1/audio/speech');
  await save.click();
  await browser.waitUntil(async () => /not an http:\/\/ address/.test(await (await browser.$('#vs-hint')).getText()),
    { timeout: 5000, timeoutMsg: 'no reason shown for a bad address' });
  assert.equal(await (await browser.$('#voice-settings')).isDisplayed(), true);
  assert.equal((await api('GET', '/api/voice/settings')).speech_url, null);
  await speechUrl.setValue(`${kokoro.url}/v1/audio/speech`);
  await (await browser.$('#vs-key')).setValue('sk-local');
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-voice-settings.png'));
  await save.click();
  await browser.waitUntil(async () => !(await (await browser.$('#voice-settings')).isDisplayed()), { timeout: 5000, timeoutMsg: 'the form stayed open' });
  const saved = await api('GET', '/api/voice/settings');
  assert.equal(saved.speech_url, `${kokoro.url}/v1/audio/speech`);
  assert.equal(saved.api_key_set, true);
  assert.equal(saved.api_key, undefined, 'the key never comes back');

  // sky's answers are read aloud (switched on in the test before): now through the service.
  clawmux('sky', ['send', '--to', 'user', 'Deployed `v2` to **staging**.']);
  await kokoro.requests(1);
  const began = Date.now();
  assert.equal(asked[0].path, '/v1/audio/speech');
  assert.equal(asked[0].input, 'Deployed v2 to staging.');
  assert.equal(kokoro.seen[0].headers.authorization, 'Bearer sk-local');
  const state = await browser.$('#voice-state');
  await browser.waitUntil(async () => (await state.getText()) === '', { timeout: 20000, timeoutMsg: 'never finished playing' });
  assert.equal(await (await browser.$('#notice')).getText(), '', 'the window played the audio of the service');
  const audio = readWav(readFileSync(SPEECH));
  const audioMs = (audio.samples.length * 1000) / audio.rate;
  assert.ok(Date.now() - began >= audioMs * 0.9, `played for ${Date.now() - began} ms, the audio lasts ${Math.round(audioMs)} ms`);
  assert.equal(await browser.execute(() => speechSynthesis.speaking), false, 'not with its own voices');
});

test('links in a message open in the user\'s browser; nothing takes the window away from the UI', async () => {
  const address = await (await browser.$('#hub-address')).getText();
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(address)?.[1]);
  const env = { PATH: process.env.PATH, HOME: dir, CLAWMUX_HOME: data, CLAWMUX_PORT: String(port), CLAWMUX_SESSION_ID: 'sky', CLAWMUX_WORK_DIR: join(dir, 'sky') };
  const opened = () => (existsSync(OPENED) ? readFileSync(OPENED, 'utf8').split('\n').filter(Boolean) : []);
  const ui = await browser.getUrl();
  await (await browser.$('[data-agent="sky"]')).click();
  const id = execFileSync(BIN, ['send', '--to', 'user', 'The report: [results](https://example.invalid/report)'], { env, encoding: 'utf8' }).trim();
  const link = await browser.$(`[data-id="${id}"] .body a`);
  await link.waitForExist({ timeout: 10000 });
  await link.click();
  await until('the link was handed to the user\'s browser', () => opened().includes('https://example.invalid/report'));
  // A navigation by script (as a form or a stray page would) is stopped, and the web address opened outside.
  await browser.execute(() => { window.location.href = 'https://example.invalid/elsewhere'; });
  await until('the navigation was handed outside', () => opened().includes('https://example.invalid/elsewhere'));
  assert.equal(await browser.getUrl(), ui, 'the window still shows the UI');
  assert.ok(await (await browser.$('#connection.online')).isExisting());
});

test('the window shows an agent\'s terminal beside its chat, and types into it', async () => {
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const address = await (await browser.$('#hub-address')).getText();
  const port = Number(/127\.0\.0\.1:(\d+)/.exec(address)?.[1]);
  const env = { PATH: process.env.PATH, HOME: dir, CLAWMUX_HOME: data, CLAWMUX_PORT: String(port) };
  execFileSync(BIN, ['spawn', 'shell', '--command', join(ROOT, 'tests/e2e/fixtures/shell-agent')], { env, encoding: 'utf8' });
  const row = await browser.$('[data-agent="shell"]');
  await row.waitForExist({ timeout: 10000 });
  await row.click();
  await (await browser.$('#act-terminal')).click();
  let shown = '';
  await until('the pane\'s prompt in the panel', async () => /\$ /.test((shown = await terminalText())));
  await (await browser.$('#terminal')).click();
  // One key per call: WebKitWebDriver loses the second of two equal keys sent in one burst.
  for (const key of [...'echo window-$((40+2))', 'Enter']) await browser.keys(key);
  await until('the shell\'s answer in the panel', async () => /^window-42$/m.test((shown = await terminalText()))).catch((e) => { throw new Error(`${e.message}: ${shown}`); });
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-terminal.png'));
  // The window's viewer is one more tmux client; hiding the panel ends it, and only it.
  const clients = () => execFileSync('tmux', ['-S', join(data, 'tmux.sock'), 'list-clients', '-t', '=shell'], { encoding: 'utf8' }).trim();
  assert.equal(clients().split('\n').length, 1);
  await (await browser.$('#act-terminal')).click();
  await until('the window\'s viewer detached', () => clients() === '');
  execFileSync(BIN, ['terminate', 'shell'], { env, encoding: 'utf8' });
});

test('the window shows the changes of an agent in a worktree of its own, drawn again when a tool call ends', async () => {
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const hub = await windowHub();
  const repo = join(dir, 'app');
  mkdirSync(join(repo, 'src'), { recursive: true });
  const git = (cwd, args) => execFileSync('git', args, { cwd, encoding: 'utf8' });
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['config', 'user.name', 'Test']);
  git(repo, ['config', 'user.email', 'test@example.com']);
  writeFileSync(join(repo, 'src/a.rs'), 'fn a() {}\n');
  git(repo, ['add', '.']);
  git(repo, ['commit', '-q', '-m', 'first']);
  const spawned = await hub.api('POST', '/api/command', { command: 'spawn', name: 'tree', demo: true, worktree: true, work_dir: repo });
  assert.equal(spawned.branch, 'clawmux/tree');
  const row = await browser.$('[data-agent="tree"]');
  await row.waitForExist({ timeout: 10000 });
  await row.click();
  await (await browser.$('#act-changes')).click();
  await (await browser.$('#changes-panel .changes-files .none')).waitForExist({ timeout: 10000 });
  // The agent edits; its tool call ends (the hook Claude Code would send): the panel draws the diff.
  const wt = join(data, 'worktrees/tree');
  writeFileSync(join(wt, 'src/a.rs'), 'fn a() {}\nfn tree() {}\n');
  const token = readFileSync(join(data, 'token'), 'utf8').trim();
  const port = /127\.0\.0\.1:(\d+)/.exec(await (await browser.$('#hub-address')).getText())[1];
  const hook = await fetch(`http://127.0.0.1:${port}/api/hooks/tool-status`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'ClawMux-Session': 'tree' },
    body: JSON.stringify({ hook_event_name: 'PostToolUse', session_id: 'c0ffee', cwd: wt, tool_name: 'Edit', tool_use_id: 'toolu_1', tool_input: {}, tool_response: {} }),
  });
  assert.equal(hook.status, 200);
  const added = await browser.$('section[data-path="src/a.rs"] .dl.add .code');
  await added.waitForExist({ timeout: 10000 });
  assert.equal(await added.getText(), 'fn tree() {}');
  assert.match(await (await browser.$('#changes-summary')).getText(), /clawmux\/tree from main · 0 commits · 1 file \+1 −0 · changes not committed yet/);
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-changes.png'));
  // Terminate asks about the worktree, whose edit is in no commit: keeping it is the choice here.
  await (await browser.$('#act-terminate')).click();
  const ask = await browser.$('#ta-text');
  await ask.waitForDisplayed({ timeout: 10000 });
  assert.match(await ask.getText(), /holds 1 file not committed \(src\/a\.rs\)/);
  await (await browser.$('#ta-keep')).click();
  await (await browser.$('[data-agent="tree"][data-state="dead"]')).waitForExist({ timeout: 10000 });
  assert.equal(readFileSync(join(wt, 'src/a.rs'), 'utf8'), 'fn a() {}\nfn tree() {}\n');
});

test('in the window: an agent\'s figures, the usage view drawn by uPlot, and the usage limit notified as such', async () => {
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const { env } = await windowHub();
  for (const name of ['sun', 'star']) {
    const { CLAWMUX_SESSION_ID: _, CLAWMUX_WORK_DIR: __, ...hubEnv } = env(name);
    mkdirSync(join(dir, name), { recursive: true });
    execFileSync(BIN, ['agent', 'add', name, '--work-dir', join(dir, name)], { env: hubEnv });
  }
  // The status-line bridge, as Claude Code runs it for a spawned agent: the payload on stdin.
  const statusLine = (agent, payload) => execFileSync(STATUS_LINE, [], { env: env(agent), input: JSON.stringify(payload), encoding: 'utf8' });
  const printed = statusLine('sun', {
    session_id: 'c-sun', model: { display_name: 'Opus 5.5' }, cost: { total_cost_usd: 1.2 },
    context_window: { context_window_size: 200000, used_percentage: 48, total_input_tokens: 96000, total_output_tokens: 4000, current_usage: { input_tokens: 96000 } },
  });
  assert.equal(printed, 'Opus 5.5 · 48% · 96k/200k · $1.20\n');
  const usage = await browser.$('[data-agent="sun"] .usage');
  await browser.waitUntil(async () => (await usage.getText()) === '48% · 96k/200k · $1.20', { timeout: 10000, timeoutMsg: 'the sidebar shows no figures' });
  await (await browser.$('#usage-open')).click();
  await (await browser.$('#usage-chart canvas')).waitForExist({ timeout: 10000 });
  const row = await browser.$('#usage-table tbody tr[data-agent="sun"]');
  await row.waitForExist({ timeout: 10000 });
  assert.match(await row.getText(), /^sun\s*\$1\.20$/);
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-usage.png'));
  await (await browser.$('#usage-close')).click();

  // A turn stopped at the usage limit: a notification of its own, not "needs you".
  const before = notifications.length;
  const stopped = spawn(BIN, ['hook', 'tool-status'], { env: env('star'), stdio: ['pipe', 'ignore', 'inherit'] });
  stopped.stdin.end(JSON.stringify({ hook_event_name: 'StopFailure', session_id: 'c-star', cwd: join(dir, 'star'), error: 'rate_limit', last_assistant_message: "You've hit your 5-hour limit · resets 3pm" }));
  await until('the rate-limited notification', () => notifications.slice(before).includes('star is rate-limited'), 10000);
  assert.match(notifications.slice(before), /You've hit your 5-hour limit · resets 3pm/);
  assert.ok(!notifications.slice(before).includes('star needs you'), 'not a need');
  const label = await browser.$('[data-agent="star"] .label');
  await browser.waitUntil(async () => (await label.getText()) === 'Rate-limited', { timeout: 10000, timeoutMsg: 'the sidebar does not say rate-limited' });
});

test('in the window: Ctrl+K finds what was said as it is typed, and Enter opens it there', async () => {
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const { env } = await windowHub();
  const { CLAWMUX_SESSION_ID: _, CLAWMUX_WORK_DIR: __, ...hubEnv } = env('owl');
  mkdirSync(join(dir, 'owl'), { recursive: true });
  execFileSync(BIN, ['agent', 'add', 'owl', '--work-dir', join(dir, 'owl')], { env: hubEnv });
  execFileSync(BIN, ['send', '--to', 'user', 'the heron migration is planned for Friday'], { env: env('owl') });
  await (await browser.$('[data-agent="owl"]')).waitForExist({ timeout: 10000 });
  await browser.keys(['Control', 'k']);
  const input = await browser.$('#search-input');
  await input.waitForDisplayed({ timeout: 10000 });
  await input.setValue('hero');
  const started = Date.now();
  await browser.keys('n');
  const mark = await browser.$('#search-results .search-result mark');
  await mark.waitForExist({ timeout: 10000 });
  const latency = await browser.execute(() => window.clawmux.searchPanel.latency);
  console.log(`in the window, the last key to its results drawn: ${latency.toFixed(1)} ms (through WebDriver: ${Date.now() - started} ms)`);
  assert.equal(await mark.getText(), 'heron');
  await browser.keys('Enter');
  const found = await browser.$('.chat[data-session="owl"] .msg.found');
  await found.waitForExist({ timeout: 10000 });
  // Marked before it is drawn: its text is read once the window shows it.
  await browser.waitUntil(async () => /heron migration/.test(await found.getText()), { timeout: 10000 });
  assert.match(await found.getText(), /heron migration/);
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-search.png'));
});

test('in the window: what passes between two agents, each delivery, and the board with their item', async () => {
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const { env } = await windowHub();
  const { CLAWMUX_SESSION_ID: _, CLAWMUX_WORK_DIR: __, ...hubEnv } = env('gull');
  for (const name of ['gull', 'puffin']) {
    mkdirSync(join(dir, name), { recursive: true });
    execFileSync(BIN, ['agent', 'add', name, '--work-dir', join(dir, name)], { env: hubEnv });
  }
  execFileSync(BIN, ['send', '--to', 'puffin', 'the schema moved to v2'], { env: env('gull') });
  execFileSync(BIN, ['task', 'add', 'update the client to v2'], { env: env('gull') });
  await (await browser.$('[data-agent="puffin"]')).waitForExist({ timeout: 10000 });
  await (await browser.$('#between-open')).click();
  const thread = await browser.$('#between-threads [data-pair="gull-puffin"]');
  await thread.waitForExist({ timeout: 10000 });
  const passed = await browser.$('#between-messages .between-message');
  await passed.waitForExist({ timeout: 10000 });
  await browser.waitUntil(async () => /the schema moved to v2/.test(await passed.getText()) && /queued/.test(await passed.getText()), { timeout: 10000 });
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-between.png'));
  await (await browser.$('#between-close')).click();
  await (await browser.$('#board-open')).click();
  const card = await browser.$('#board-columns [data-state="open"] .board-card');
  await card.waitForExist({ timeout: 10000 });
  await browser.waitUntil(async () => /update the client to v2/.test(await card.getText()), { timeout: 10000 });
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-board.png'));
  await (await browser.$('#board-close')).click();
});

test('in the window: a pasted screenshot and a dropped log reach the agent as files, and the chat shows them', async () => {
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const { env } = await windowHub();
  const { CLAWMUX_SESSION_ID: _, CLAWMUX_WORK_DIR: __, ...hubEnv } = env('kit');
  mkdirSync(join(dir, 'kit'), { recursive: true });
  execFileSync(BIN, ['agent', 'add', 'kit', '--work-dir', join(dir, 'kit')], { env: hubEnv });
  const row = await browser.$('[data-agent="kit"]');
  await row.waitForExist({ timeout: 10000 });
  await row.click();
  const wait = waitAs(env, 'kit');
  await (await browser.$('[data-agent="kit"].indicator-idle')).waitForExist({ timeout: 10000 });
  const shot = png(240, 160);
  const log = Buffer.from('panicked at src/lib.rs:7\n');
  // As WebKitGTK hands the page a paste and a drop: files in a DataTransfer.
  await browser.execute((shotB64, logB64) => {
    const file = (b64, name, type) => new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name, { type });
    const pasted = new DataTransfer();
    pasted.items.add(file(shotB64, 'image.png', 'image/png'));
    document.querySelector('#input').dispatchEvent(new ClipboardEvent('paste', { clipboardData: pasted, bubbles: true, cancelable: true }));
    const dropped = new DataTransfer();
    dropped.items.add(file(logB64, 'panic.log', 'text/plain'));
    const target = document.querySelector('#conversation');
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dropped, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dropped, bubbles: true, cancelable: true }));
  }, shot.toString('base64'), log.toString('base64'));
  await browser.waitUntil(() => browser.execute(() => document.querySelectorAll('#attached .file').length === 2 && !document.querySelector('#attached .keeping')), { timeout: 10000, timeoutMsg: 'both files in the tray, kept' });
  await (await browser.$('#input')).setValue('why?');
  await browser.keys('Enter');
  await until("the agent's wait printing both files", () => fileLines(wait.printed).length === 2, 20000);
  const [image, text] = fileLines(wait.printed);
  assert.deepEqual(readFileSync(image.path), shot);
  assert.deepEqual(readFileSync(text.path), log);
  assert.equal(text.name, 'panic.log');
  // The thumbnail is the image itself, its bytes raw over the IPC.
  await browser.waitUntil(() => browser.execute(() => document.querySelector('.chat[data-session="kit"] .msg.kind-user .file.kind-image img')?.naturalWidth === 240), { timeout: 10000, timeoutMsg: 'the thumbnail drawn' });
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-attachments.png'));
});

test('in the window: phones turned on, the pairing link shown as a QR code, the phone that redeems it listed and revoked', async () => {
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const { clawmux } = await windowHub();
  const on = await browser.$('#phone-on');
  await on.waitForDisplayed({ timeout: 10000 });
  assert.equal(await on.isSelected(), false, 'off by default');
  await on.click();
  const pair = await browser.$('#phone-pair');
  await pair.waitForDisplayed({ timeout: 10000 });
  assert.match(clawmux('sky', ['phone', 'status']), /^phones: on$/m);
  await pair.click();
  await (await browser.$('#phone-pairing')).waitForDisplayed({ timeout: 10000 });
  await browser.waitUntil(() => browser.execute(() => {
    const img = document.getElementById('phone-qr');
    return img.src.startsWith('data:image/svg+xml') && img.complete && img.naturalWidth >= 200;
  }), { timeout: 10000, timeoutMsg: 'no QR code drawn' });
  const link = (await (await browser.$('#phone-link')).getText()).trim();
  const [, origin, code] = /^(http:\/\/127\.0\.0\.1:\d+)\/#pair=([0-9a-f]{32})$/.exec(link) ?? [];
  assert.ok(code, link);
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-phone-pairing.png'));
  // A phone redeems the code as its page does; the window lists it and closes the pairing.
  const paired = await fetch(`${origin}/api/phone/pair`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Origin: origin }, body: JSON.stringify({ code, name: 'Pixel in the window test' }),
  });
  assert.equal(paired.status, 200);
  const row = await browser.$('#phone-list li:not(.revoked)');
  await row.waitForExist({ timeout: 15000 });
  assert.match(await row.getText(), /Pixel in the window test/);
  await (await browser.$('#phone-pairing')).waitForDisplayed({ reverse: true, timeout: 10000 });
  await (await row.$('button')).click();
  await (await browser.$('#phone-list li.revoked')).waitForExist({ timeout: 10000 });
  assert.match(clawmux('sky', ['phone', 'status']), /revoked/);
  await on.click();
  await pair.waitForDisplayed({ reverse: true, timeout: 10000 });
});

test('in the window: "Start at login" is off until ticked, then an autostart entry runs this app; unticked, it is gone', async () => {
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const entry = join(dir, '.config', 'autostart', 'clawmux.desktop');
  const box = await browser.$('#login-start');
  await box.waitForDisplayed({ timeout: 10000 });
  assert.equal(await box.isSelected(), false, 'off by default');
  assert.equal(existsSync(entry), false);
  await box.click();
  await until('the autostart entry written', () => existsSync(entry), 10000);
  const text = readFileSync(entry, 'utf8');
  assert.match(text, /^\[Desktop Entry\]\nType=Application\n/);
  assert.ok(text.includes(`\nExec="${APP}"\n`), text);
  assert.equal(statSync(entry).mode & 0o777, 0o600);
  assert.equal(await box.isSelected(), true);
  await box.click();
  await until('the autostart entry removed', () => !existsSync(entry), 10000);
  assert.equal(await box.isSelected(), false);
});

test('in the window: another machine added, its agent listed under it and answering over ssh, and its agents notified here', async () => {
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const remote = await startHub();
  const sshd = await startSshd(remote, sshKeys(SSH_CONFIG));
  const events = await remote.events();
  try {
    const mark = events.mark();
    remote.clawmux(['spawn', 'kite', '--demo']);
    await events.state('kite', 'idle', mark, 20000);
    await (await browser.$('#new-machine')).click();
    await (await browser.$('#machine-name')).setValue('gpu');
    await (await browser.$('#machine-url')).setValue(sshd.url);
    await (await browser.$('#machine-form button[type=submit]')).click();
    await (await browser.$('#agents .machine[data-machine="gpu"]')).waitForExist({ timeout: 20000 });
    const agent = await browser.$('#agents [data-agent="kite@gpu"][data-state="idle"]');
    await agent.waitForExist({ timeout: 20000 });
    await agent.click();
    await (await browser.$('#input')).setValue('hello from the window');
    await browser.keys('Enter');
    await until('the answer from the other machine', async () => browser.execute(() => [...document.querySelectorAll('.chat[data-session="kite@gpu"] .msg.kind-assistant')]
      .some((m) => m.textContent.includes('hello from the window'))), 20000);
    // Its terminal in the window's panel, through this machine's hub and the link.
    remote.clawmux(['spawn', 'tern', '--command', join(ROOT, 'tests/e2e/fixtures/shell-agent')]);
    const tern = await browser.$('#agents [data-agent="tern@gpu"]');
    await tern.waitForExist({ timeout: 20000 });
    await tern.click();
    await (await browser.$('#act-terminal')).click();
    let shown = '';
    await until('the remote pane\'s prompt in the panel', async () => /\$ /.test((shown = await terminalText())), 20000);
    await (await browser.$('#terminal')).click();
    for (const key of [...'echo far-$((40+2))', 'Enter']) await browser.keys(key);
    await until('the remote shell\'s answer', async () => /^far-42$/m.test((shown = await terminalText())), 20000).catch((e) => { throw new Error(`${e.message}: ${shown}`); });
    await (await browser.$('#act-terminal')).click();
    await (await browser.$('#agents [data-agent="kite@gpu"]')).click();

    // Another agent there finishes while the user looks at this one: notified on this desktop.
    const wrenMark = events.mark();
    remote.clawmux(['spawn', 'wren', '--demo']);
    await events.state('wren', 'idle', wrenMark, 20000);
    await (await browser.$('#agents [data-agent="wren@gpu"]')).waitForExist({ timeout: 20000 });
    await remote.api('POST', '/api/sessions/wren/messages', { text: 'a job for wren' });
    await until('the notification of the other machine\'s agent', () => notifications.includes('wren@gpu is waiting for you'), 20000);
    // A permission asked there is answered from its notification here.
    remote.addAgent('heron');
    const decided = remote.hook('heron', 'permission', { hook_event_name: 'PermissionRequest', session_id: 'c-heron', cwd: join(remote.dir, 'agents', 'heron'), tool_name: 'Bash', tool_input: { command: 'git push --tags' } });
    await until('the remote permission\'s notification with its actions', () => notifications.includes('Running git push --tags') && /"allow"[\s\S]*"Allow"/.test(notifications.slice(notifications.indexOf('Running git push --tags') - 600)), 20000);
    writeFileSync(PICK, 'Allow ');
    execFileSync('dunstctl', ['context'], { env: { PATH: process.env.PATH, DISPLAY, DBUS_SESSION_BUS_ADDRESS: BUS } });
    assert.deepEqual(JSON.parse(await decided).hookSpecificOutput.decision, { behavior: 'allow' });
    await painted();
    await browser.saveScreenshot(join(ARTIFACTS, 'desktop-machines.png'));
  } finally {
    events.close();
    sshd.stop();
    remote.stop();
  }
});

test('a second launch only raises the first window: one instance, one hub', async () => {
  const second = spawn(APP, ['--data-dir', data], {
    env: { PATH: process.env.PATH, HOME: dir, DISPLAY, DBUS_SESSION_BUS_ADDRESS: BUS },
    stdio: 'ignore',
  });
  children.push(second);
  const code = await Promise.race([
    new Promise((ok) => second.once('exit', ok)),
    new Promise((ok) => setTimeout(() => ok('still running after 15 s'), 15000)),
  ]);
  assert.equal(code, 0, 'the second launch exits');
  assert.equal(await listening(3461), false, 'it never started a second hub');
  assert.equal(await (await browser.$('#connection.online')).isExisting(), true, 'the first window still runs');
});

test('the tray: its badge counts who needs the user, its menu opens them and turns hands-free on; closing the window keeps the hub (said once), minimized with no tray; Quit ends the app', async (t) => {
  // A quiet microphone: hands-free turned on from the tray listens and hears nobody.
  const quiet = join(dir, 'quiet.wav');
  writeWav(quiet, 16000, new Int16Array(16000 * 3));
  const mark = tray.count;
  await quitApp();
  await launchApp(['--data-dir', data, '--microphone-file', quiet]);
  t.after(async () => {
    if (await listening(3460)) await quitApp();
    else await browser?.deleteSession().catch(() => {});
    await launchApp(APP_ARGS);
    await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  });
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  // The app's icon registers with the desktop's tray, its image files in the data folder.
  const item = await tray.next(mark);
  const first = await tray.properties(item);
  assert.ok(first.IconThemePath.startsWith(data), `the icon's files are the user's own: ${first.IconThemePath}`);
  const menu = () => tray.menu(item);
  const labels = async () => (await menu()).map((e) => e.label);
  assert.ok((await labels()).includes('Quit ClawMux'), `the menu: ${await labels()}`);
  const before = Number(first.XAyatanaLabel || 0);

  // An agent starts to need the user: the badge counts it, the menu names it with the reason.
  const { api, env } = await windowHub();
  const port = Number(env('x').CLAWMUX_PORT);
  for (const name of ['wren', 'lark']) {
    execFileSync(BIN, ['agent', 'add', name, '--work-dir', join(dir, name)], { env: { PATH: process.env.PATH, HOME: dir, CLAWMUX_HOME: data, CLAWMUX_PORT: String(port) } });
  }
  const wait = waitAs(env, 'wren');
  await (await browser.$('[data-agent="wren"].indicator-idle')).waitForExist({ timeout: 10000 });
  const token = readFileSync(join(data, 'token'), 'utf8').trim();
  const hook = (body) => fetch(`http://127.0.0.1:${port}/api/hooks/tool-status`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'ClawMux-Session': 'wren' },
    body: JSON.stringify(body),
  });
  await hook({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm publish' }, tool_use_id: 't9' });
  await hook({ hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'npm publish' } });
  await until('the badge counts wren', async () => Number((await tray.properties(item)).XAyatanaLabel || 0) === before + 1);
  const badged = await tray.properties(item);
  assert.notEqual(badged.IconName, first.IconName, 'the icon changed to the badged one');
  assert.ok((await labels()).includes('wren: Permission: Running npm publish'), `the menu: ${await labels()}`);
  await painted();
  await browser.saveScreenshot(join(ARTIFACTS, 'desktop-tray-needs.png'));

  // A click on it opens wren in the window.
  await (await browser.$('[data-agent="lark"]')).click();
  await tray.click(item, /^wren: /);
  await (await browser.$('[data-agent="wren"].selected')).waitForExist({ timeout: 10000 });
  // Answered (the tool ran): the badge and the menu let it go.
  await hook({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'npm publish' }, tool_use_id: 't9', tool_response: {} });
  await until('the badge lets wren go', async () => Number((await tray.properties(item)).XAyatanaLabel || 0) === before);
  assert.ok(!(await labels()).some((l) => l.startsWith('wren')), 'wren left the menu');

  // Hands-free from the tray: the window listens, and the tick says so; off again the same way.
  const handsFree = async () => (await menu()).find((e) => e.label === 'Hands-free').toggle;
  assert.equal(await handsFree(), false);
  await tray.click(item, /^Hands-free$/);
  await browser.waitUntil(() => browser.execute(() => window.clawmux.handsFree.state === 'listening'), { timeout: 10000, timeoutMsg: 'the window did not listen' });
  await until('the tick on', async () => (await handsFree()) === true);
  await tray.click(item, /^Hands-free$/);
  await browser.waitUntil(() => browser.execute(() => !window.clawmux.handsFree.on), { timeout: 10000, timeoutMsg: 'the window still listens' });
  await until('the tick off', async () => (await handsFree()) === false);

  // Closing the window hides it in the tray: the hub goes on, and the user is told so once.
  const windowState = () => execFileSync(join(ROOT, 'tests/e2e/fixtures/x11-window.py'), ['state', 'ClawMux'], { env: { PATH: process.env.PATH, DISPLAY }, encoding: 'utf8' }).trim();
  const closeWindow = () => execFileSync(join(ROOT, 'tests/e2e/fixtures/x11-window.py'), ['close', 'ClawMux'], { env: { PATH: process.env.PATH, DISPLAY } });
  const told = () => notifications.split('ClawMux is still running').length - 1;
  assert.equal(windowState(), 'shown');
  // Where the desktop has no tray, closing minimizes the window instead (a no-op with no window manager):
  // it stays the way in, and the user is told how to quit.
  await tray.away();
  closeWindow();
  // The close reaches the app through the X server, the notification the daemon through the bus.
  await until('told once', () => told() === 1, 60000).catch((e) => {
    throw new Error(`${e.message}: told ${told()} times; the daemon saw: ${notifications.slice(-800)}`);
  });
  assert.match(notifications, /The window is minimized; Ctrl\+Q in it quits ClawMux/);
  assert.equal(windowState(), 'shown', 'not hidden with no tray to bring it back');
  await tray.back();
  closeWindow();
  await until('the window hidden', () => windowState() === 'hidden');
  assert.equal(statSync(join(dir, '.config', 'dev.clawmux.desktop', 'told-closing-keeps-running')).mode & 0o777, 0o600);
  assert.ok((await api('GET', '/api/sessions')).some((s) => s.session_id === 'wren'), 'the hub answers');
  await api('POST', '/api/sessions/wren/messages', { text: 'still there?' });
  await until('the agent got a message with the window closed', () => /still there\?/.test(wait.printed));
  // The tray's Open brings it back; closed again, nothing more is said.
  await tray.click(item, /^Open ClawMux$/);
  await until('the window shown', () => windowState() === 'shown');
  closeWindow();
  await until('the window hidden again', () => windowState() === 'hidden');
  // Launching the app again is a way back too (its single instance shows the window).
  const again = spawn(APP, ['--data-dir', data], { env: { PATH: process.env.PATH, HOME: dir, DISPLAY, DBUS_SESSION_BUS_ADDRESS: BUS }, stdio: 'ignore' });
  children.push(again);
  await until('the window shown by a second launch', () => windowState() === 'shown');
  assert.equal(told(), 1, 'said once');

  // Quit ends the app.
  await tray.click(item, /^Quit ClawMux$/);
  await until('the app gone (its port closed)', async () => !(await listening(port)), 20000);
  // Ctrl+Q in the window ends it too.
  await browser.deleteSession().catch(() => {});
  await launchApp(APP_ARGS);
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  // Pressed on the X server's keyboard: WebDriver's keys would wait on the window for their release, and
  // the app gone meanwhile leaves the driver's session crashed rather than ended.
  execFileSync(join(ROOT, 'tests/e2e/fixtures/x11-window.py'), ['ctrl-q', 'ClawMux'], { env: { PATH: process.env.PATH, DISPLAY } });
  await until('the app gone after Ctrl+Q', async () => !(await listening(port)), 20000);
  await browser.deleteSession().catch(() => {});
});

test('the window comes back with the size and place it had', async () => {
  await browser.setWindowRect(40, 30, 900, 640);
  const before = await browser.getWindowRect();
  assert.deepEqual([before.width, before.height], [900, 640]);
  // The geometry is saved once the window stays still, not only at a clean exit: the app is then killed.
  await until('the window state saved', () => {
    try {
      const saved = JSON.parse(readFileSync(WINDOW_STATE, 'utf8')).main;
      return saved?.width === 900 && saved?.height === 640;
    } catch {
      return false;
    }
  }, 10000);
  await quitApp();
  await launchApp(APP_ARGS);
  await (await browser.$('#connection.online')).waitForExist({ timeout: 20000 });
  const rect = await browser.getWindowRect();
  assert.deepEqual([rect.width, rect.height, rect.x, rect.y], [before.width, before.height, before.x, before.y]);
});

test('when the hub cannot start, the window says why instead of showing nothing', async () => {
  // The first session's app must be gone first: the app is single-instance.
  await quitApp();
  const blockers = [];
  for (let port = 3460; port <= 3479; port++) {
    const server = createServer();
    await new Promise((ok, fail) => server.once('error', fail).listen(port, '127.0.0.1', ok));
    blockers.push(server);
  }
  try {
    await launchApp(['--data-dir', join(dir, 'second')]);
    const fatal = await browser.$('#fatal');
    await fatal.waitForDisplayed({ timeout: 20000 });
    assert.match(await (await browser.$('#fatal-message')).getText(), /No port from 3460 to 3479/);
    assert.equal(await (await browser.$('#main')).isDisplayed(), false);
    await painted();
    await browser.saveScreenshot(join(ARTIFACTS, 'desktop-hub-failed.png'));
  } finally {
    for (const s of blockers) s.close();
  }
});
