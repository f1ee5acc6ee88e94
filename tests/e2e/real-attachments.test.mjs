// A screenshot attached in the chat reaches the real Claude Code CLI (pinned, from npm) as ClawMux spawns
// it: its wait prints the file's path, Claude Code's Read opens it with no permission dialog, and the
// scripted model receives it as an image content block holding the exact bytes pasted.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startHub } from './harness.mjs';
import { fileLines, png } from './files.mjs';
import { bash, claudeBinary, claudeEnv, prepareHome, spawnSky, startModel } from './real-claude.mjs';

/** The image blocks of a request's last tool result. */
function imagesIn(body) {
  const last = body.messages.at(-1);
  const blocks = Array.isArray(last?.content) ? last.content : [];
  return blocks
    .filter((b) => b.type === 'tool_result')
    .flatMap((r) => (Array.isArray(r.content) ? r.content : []))
    .filter((b) => b.type === 'image');
}

test('an image attached in the chat reaches the real CLI\'s model as an image, read where the hub keeps it', async () => {
  const shot = png(200, 120);
  let seen = null;
  let replyTo = null;
  const model = await startModel(({ body, last }) => {
    const images = imagesIn(body);
    if (images.length) {
      seen = images;
      return bash(`clawmux send --to user --re ${replyTo} 'I see the screenshot'`, 'answer the user');
    }
    const msg = /\[MSG id:(msg-[0-9a-f]{8}) from:user\]/.exec(last);
    const [file] = fileLines(last);
    if (msg && file) {
      replyTo = msg[1];
      return { tool: { name: 'Read', input: { file_path: file.path } } };
    }
    return bash('clawmux wait', 'wait for the next message');
  });
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claudeBinary(), ...claudeEnv(model.port) } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  const ev = await hub.events();
  try {
    await spawnSky(hub, ev);
    let m;
    // As the page sends it: the file kept first, then the message naming it.
    const kept = await hub.api('POST', '/api/command', { command: 'attach', session_id: 'sky', name: 'Screenshot.png', data: shot.toString('base64') });
    m = ev.mark();
    const sent = await hub.api('POST', '/api/sessions/sky/messages', { text: 'What is wrong on this page?', attachments: [{ id: kept.id, name: 'Screenshot.png' }] });
    const answer = await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === sent.id, 90000);
    assert.equal(answer.text, 'I see the screenshot');
    assert.ok(seen, 'the model was given an image');
    assert.equal(seen[0].source.type, 'base64');
    assert.equal(seen[0].source.media_type, 'image/png');
    assert.deepEqual(Buffer.from(seen[0].source.data, 'base64'), shot, 'the exact bytes pasted');
    // No dialog asked the user to let the agent read the file.
    assert.deepEqual(ev.seen.slice(m).filter((e) => e.type === 'session_status' && e.session_id === 'sky' && e.needs?.request), []);
    await ev.state('sky', 'idle', m, 60000);
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});
