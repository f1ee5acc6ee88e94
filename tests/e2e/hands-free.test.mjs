// Hands-free in the browser UI, with real speech: Chromium's fake microphone plays espeak-ng's "Rain,
// please run the tests." followed by silence, over and over, as a user speaking now and then would; the
// page listens with its own voice-activity detector, sends each utterance to the hub, which hears it on
// the device (whisper.cpp, the test model tiny.en) and delivers the words to the agent named, whose
// `clawmux wait` prints them. The indicator is on all the while it listens; one click mutes it.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { openBrowser, openUi, startHub, withTestModel, within } from './harness.mjs';

/** espeak-ng's `words` and `silence` seconds of nothing after them, as one WAV. */
function utterance(file, words, silence) {
  execFileSync('espeak-ng', ['-w', file, words]);
  const wav = readFileSync(file);
  const rate = wav.readUInt32LE(24);
  const data = Buffer.concat([wav.subarray(44), Buffer.alloc(Math.round(rate * silence) * 2)]);
  const header = Buffer.from(wav.subarray(0, 44));
  header.writeUInt32LE(36 + data.length, 4);
  header.writeUInt32LE(data.length, 40);
  writeFileSync(file, Buffer.concat([header, data]));
}

const SPEECH = join(tmpdir(), `clawmux-hands-free-${process.pid}.wav`);
utterance(SPEECH, 'Rain, please run the tests.', 2.5);

let browser;
before(async () => {
  browser = await openBrowser(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${SPEECH}`]);
});
after(async () => { await browser?.close(); });

test('hands-free hears an utterance addressed by name and the agent named gets it; the indicator shows it listening until muted', async () => {
  const hub = await startHub({ prepare: withTestModel });
  const { page, errors } = await openUi(browser, hub);
  try {
    await hub.api('POST', '/api/voice/settings', { local_model: 'tiny.en' });
    hub.addAgent('sky');
    hub.addAgent('rain');
    await page.click('[data-agent="sky"]');
    const rain = hub.wait('rain');
    assert.equal(await page.textContent('#hands-free-state'), '', 'off by default: nothing listens');
    await page.click('#hands-free');
    await page.waitForSelector('#hands-free-state.on');
    assert.equal(await page.getAttribute('#hands-free', 'aria-pressed'), 'true');
    // Sky is on screen; the words named rain: rain's wait prints them, as the user's voice message.
    const printed = await within(rain.done, 60000, "rain's wait printing the words");
    assert.match(printed, /^\[VOICE id:msg-[0-9a-f]{8} from:user aloud\] .*run the tests?\b/im, "a spoken answer asked: the user listens");
    assert.doesNotMatch(printed, /from:user( aloud)?\] rain/i, 'the name is taken off');
    await page.waitForFunction(() => /run the tests/i.test(document.querySelector('#hands-free-state').textContent));
    // One click mutes at once; the toggle turns it off and the indicator goes.
    await page.click('#hands-free-mute');
    assert.match(await page.textContent('#hands-free-state'), /^Muted/);
    assert.equal(await page.$eval('#hands-free-state', (e) => e.classList.contains('on')), false);
    await page.click('#hands-free');
    assert.equal(await page.textContent('#hands-free-state'), '');
    assert.equal(await page.isHidden('#hands-free-mute'), true);
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
  }
});

test('without the speech model, hands-free says so at the first utterance, stops listening, and the hub keeps nothing', async () => {
  const hub = await startHub();
  const { page } = await openUi(browser, hub);
  try {
    await hub.api('POST', '/api/voice/settings', { local_model: 'tiny.en' });
    hub.addAgent('sky');
    await page.click('[data-agent="sky"]');
    await page.click('#hands-free');
    await page.waitForFunction(() => /speech model/.test(document.querySelector('#notice').textContent), null, { timeout: 30000 });
    assert.equal(await page.getAttribute('#hands-free', 'aria-pressed'), 'false');
    assert.equal(await page.textContent('#hands-free-state'), '');
    assert.deepEqual(readdirSync(join(hub.data, 'voice')), [], 'no recording kept');
  } finally {
    hub.stop();
  }
});

test('the detector starts an utterance 60 ms into a voice, ends it after 0.7 s of quiet, and is not started by the app\'s own quieter speech', async () => {
  const { Detector } = await import('../../ui/js/hands-free.js');
  const run = (levels, appSpeaking = false) => {
    const d = new Detector();
    return levels.map((level) => d.push(level, appSpeaking)).flatMap((edge, i) => (edge ? [[edge, i]] : []));
  };
  const room = Array(50).fill(0.002);
  const voice = Array(40).fill(0.1);
  const quiet = Array(40).fill(0.002);
  // The third loud frame of 20 ms starts it: 60 ms after the voice begins, the app's speech is stopped.
  assert.deepEqual(run([...room, ...voice, ...quiet]), [['start', 52], ['end', 124]]);
  // While the app speaks, its echo (ten times the room) starts nothing; the user's voice over it does.
  const echo = Array(40).fill(0.02);
  assert.deepEqual(run([...room, ...echo], true), []);
  assert.deepEqual(run([...room, ...echo, ...voice], true).map(([edge]) => edge), ['start']);
  // A room that gets louder (a fan) moves the floor: steady noise is never speech.
  assert.deepEqual(run(Array(400).fill(0.004)), []);
});
