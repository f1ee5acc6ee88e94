// Prints the UI's figures in Chromium against the real hub (run by scripts/bench):
// - first view of a conversation with 10,000 messages (the latest page, as a person sees it), target < 300 ms;
// - rendering all 10,000 messages into one conversation (what "load older" to the very start costs);
// - elements touched by one new message (target: one).

import { join } from 'node:path';
import { openBrowser, openUi, startHub } from './harness.mjs';

const N = 10_000;
const hub = await startHub();
const browser = await openBrowser();
try {
  hub.addAgent('sky');
  hub.addAgent('other');
  const texts = Array.from({ length: N }, (_, i) => `Message **${i}** with \`code\` and a [link](https://example.org/${i}).`);
  for (let i = 0; i < N; i += 50) {
    await Promise.all(texts.slice(i, i + 50).map((text) => hub.api('POST', '/api/send', { to: 'user', text }, 'sky')));
  }
  const { page } = await openUi(browser, hub);
  await page.click('[data-agent="other"]');
  const first = await page.evaluate(async () => {
    const start = performance.now();
    document.querySelector('[data-agent="sky"]').click();
    await new Promise((ok) => {
      const check = () => (document.querySelectorAll('.chat[data-session="sky"] .msg').length >= 100 ? ok() : requestAnimationFrame(check));
      check();
    });
    await new Promise((ok) => requestAnimationFrame(() => ok()));
    return performance.now() - start;
  });
  console.log(`first view of a ${N}-message conversation (latest 100 rendered, painted): ${first.toFixed(0)} ms (target < 300 ms)`);

  const all = await page.evaluate(async (n) => {
    const { backend, conversations } = window.clawmux;
    const conv = conversations.get('sky');
    const pages = [];
    let before = conv.oldest.id;
    while (before) {
      const page = await backend.history('sky', { before, limit: 1000 });
      pages.push(page.messages);
      before = page.messages.length === 1000 ? page.messages[0].id : null;
    }
    const start = performance.now();
    for (const page of pages) for (const m of page) conv.add(m);
    await new Promise((ok) => requestAnimationFrame(() => ok()));
    return { ms: performance.now() - start, count: document.querySelectorAll('.chat[data-session="sky"] .msg').length, n };
  }, N);
  console.log(`rendering the other ${all.count - 100} messages (all ${all.count} on screen, markdown each): ${all.ms.toFixed(0)} ms`);
  await page.screenshot({ path: join(import.meta.dirname, '../../test-artifacts/bench-10k.png') });
} finally {
  await browser.close();
  hub.stop();
}
