// What hands-free costs while nobody speaks: Chromium's fake microphone plays ten seconds of quiet room
// noise over and over; the page listens with its voice-activity detector. Prints the CPU of the browser's
// processes and of the hub over the same seconds with hands-free off and on (target: listening < 3 % of one
// core more than not), and how many utterances were sent (target: none).
//
// Run: node tests/e2e/bench-hands-free.mjs

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { openBrowser, openUi, startHub, withTestModel } from './harness.mjs';

const SECONDS = Number(process.env.SECONDS_EACH ?? 20);
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));

/** Ten seconds of quiet noise (about -50 dBFS), 16-bit mono at 16 kHz, as a WAV. */
function roomNoise(file) {
  const rate = 16000;
  const samples = rate * 10;
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round((Math.random() * 2 - 1) * 100), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0); header.writeUInt32LE(36 + data.length, 4); header.write('WAVE', 8);
  header.write('fmt ', 12); header.writeUInt32LE(16, 16); header.writeUInt16LE(1, 20); header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24); header.writeUInt32LE(rate * 2, 28); header.writeUInt16LE(2, 32); header.writeUInt16LE(16, 34);
  header.write('data', 36); header.writeUInt32LE(data.length, 40);
  writeFileSync(file, Buffer.concat([header, data]));
}

/** CPU time (ms) so far of every process whose command line names `pattern`. */
function cpuOf(pattern) {
  let pids = [];
  try { pids = execFileSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).trim().split('\n').filter(Boolean); } catch { /* none */ }
  let total = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
    } catch { /* gone */ }
  }
  return total;
}

const NOISE = join(tmpdir(), `clawmux-room-noise-${process.pid}.wav`);
roomNoise(NOISE);
const browser = await openBrowser(['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${NOISE}`]);
const hub = await startHub({ prepare: withTestModel });
try {
  const { page } = await openUi(browser, hub);
  await hub.api('POST', '/api/voice/settings', { local_model: 'tiny.en' });
  hub.addAgent('sky');
  await page.click('[data-agent="sky"]');
  let sent = 0;
  page.on('request', (r) => { if (r.url().includes('/api/voice/hear')) sent += 1; });
  const measure = async () => {
    const [c0, h0] = [cpuOf('chromium'), cpuOf(`serve --port ${hub.port}`)];
    await new Promise((ok) => setTimeout(ok, SECONDS * 1000));
    const [c1, h1] = [cpuOf('chromium'), cpuOf(`serve --port ${hub.port}`)];
    return { browser: (c1 - c0) / (SECONDS * 10), hub: (h1 - h0) / (SECONDS * 10) };
  };
  const off = await measure();
  // The floor: the microphone open with hands-free's constraints and nothing reading it (the browser's
  // own capture, its fake device included).
  await page.evaluate(async () => {
    window.held = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true } });
  });
  const held = await measure();
  await page.evaluate(() => window.held.getTracks().forEach((t) => t.stop()));
  await page.click('#hands-free');
  await page.waitForSelector('#hands-free-state.on');
  const on = await measure();
  console.log(`the browser, hands-free off: ${off.browser.toFixed(2)} % of one core; listening to room noise: ${on.browser.toFixed(2)} % (+${(on.browser - off.browser).toFixed(2)}; target < 3)`);
  console.log(`  of it the browser's own capture, the microphone held with nothing reading it: +${(held.browser - off.browser).toFixed(2)}; the page's listening on top: +${(on.browser - held.browser).toFixed(2)}`);
  console.log(`the hub meanwhile: ${off.hub.toFixed(2)} % off, ${on.hub.toFixed(2)} % listening`);
  console.log(`utterances sent while nobody spoke: ${sent} (target 0) over ${SECONDS} s`);
} finally {
  hub.stop();
  await browser.close();
}
