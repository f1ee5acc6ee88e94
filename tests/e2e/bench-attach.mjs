// A 5 MB screenshot pasted into the chat in Chromium, sent at once (Enter right after the paste): the time
// from the paste to the agent's `clawmux wait` printing the file's path. Each run pastes a new image (noise:
// no compression, no file kept already), so every run reads, sends, hashes, syncs and writes all of it.
//
// Run: CLAWMUX_BIN=$PWD/target/release/clawmux node tests/e2e/bench-attach.mjs   (RUNS=7, MB=5 by default)

import { openBrowser, openUi, startHub, within } from './harness.mjs';
import { fileLines, pngOfSize } from './files.mjs';

const RUNS = Number(process.env.RUNS ?? 7);
const BYTES = Number(process.env.MB ?? 5) * 1024 * 1024;

const browser = await openBrowser();
const hub = await startHub();
const { page } = await openUi(browser, hub);
try {
  hub.addAgent('sky');
  await page.click('[data-agent="sky"]');
  const took = [];
  let size = 0;
  for (let run = 0; run < RUNS; run++) {
    const shot = pngOfSize(BYTES);
    size = shot.length;
    // The image is a File in the page before the clock starts, as a screenshot on the clipboard is.
    await page.evaluate((b64) => {
      window.__shot = new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], 'Screenshot.png', { type: 'image/png' });
    }, shot.toString('base64'));
    await hub.api('POST', '/api/hooks/tool-status', { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'clawmux wait' } }, 'sky');
    const wait = hub.wait('sky');
    await page.waitForSelector('[data-agent="sky"].indicator-idle');
    let printedAt = 0;
    wait.process.stdout.on('data', () => { printedAt ||= performance.now(); });
    const started = performance.now();
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(window.__shot);
      document.querySelector('#input').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      document.querySelector('#composer').requestSubmit();
    });
    const printed = await within(wait.done, 30000, 'the wait printing the path');
    if (fileLines(printed).length !== 1) throw new Error(`the wait printed ${printed}`);
    took.push(printedAt - started);
  }
  took.sort((a, b) => a - b);
  const median = took[Math.floor(took.length / 2)];
  console.log(`paste of a ${(size / 1048576).toFixed(1)} MB PNG to the agent's wait printing its path, ${RUNS} runs: median ${median.toFixed(0)} ms, min ${took[0].toFixed(0)} ms, max ${took.at(-1).toFixed(0)} ms (goal < 300 ms)`);
} finally {
  hub.stop();
  await browser.close();
}
