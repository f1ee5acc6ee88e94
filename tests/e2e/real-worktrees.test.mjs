// Two real Claude Code CLIs (pinned, from npm) in one repository, each in a worktree of its own, driven by
// a scripted model that writes files with Claude Code's own Write tool: their work stays apart, the real
// PostToolUse hook tells the window their changes moved, the conflict forecast sees them collide before
// either merges, a review reaches the model, a squash merge lands on the user's branch, and removing a
// worktree with work in it is refused.

import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub, within } from './harness.mjs';
import { bash, claudeBinary, claudeEnv, prepareHome, startModel } from './real-claude.mjs';

let claude;
before(() => { claude = claudeBinary(); });

function git(dir, args) {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
}

/**
 * A model that follows ClawMux's instructions and does what the user's message says: `write PATH TEXT`
 * writes TEXT to PATH with the Write tool; anything else is answered "heard". Every message it received
 * is kept in `heard`; `written(path)` is called when the Write tool's result comes back.
 */
function writer(heard, written) {
  return ({ last }) => {
    // Claude Code ran the Write (and its PostToolUse hook) before it asks the model again.
    const created = /File created successfully at: (\S+)/.exec(last);
    if (created) written(created[1]);
    const msg = /\[MSG id:(msg-[0-9a-f]{8}) from:user\] ([\s\S]*)/.exec(last);
    if (!msg) return bash('clawmux wait', 'wait for the next message');
    heard.push(msg[2]);
    const write = /^write (\S+) (.*)$/.exec(msg[2].trim());
    if (write) return { tool: { name: 'Write', input: { file_path: write[1], content: `${write[2]}\n` } } };
    return bash(`clawmux send --to user --re ${msg[1]} 'heard'`, 'answer the user');
  };
}

test('two real agents in one repository: apart, live, forecast, reviewed, merged, never lost', async () => {
  const heard = [];
  const waiting = new Map();
  /** Resolves when the model has seen the Write of `path` done. */
  const writes = (path) => new Promise((ok) => waiting.set(path, ok));
  const model = await startModel(writer(heard, (path) => waiting.get(path)?.()));
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  const repo = join(hub.dir, 'app');
  mkdirSync(repo, { recursive: true });
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['config', 'user.name', 'Test']);
  git(repo, ['config', 'user.email', 'test@example.com']);
  writeFileSync(join(repo, 'README'), 'app\n');
  git(repo, ['add', '.']);
  git(repo, ['commit', '-q', '-m', 'first']);
  prepareHome(hub.dir, [repo]);
  const ev = await hub.events();
  try {
    let m = ev.mark();
    for (const name of ['sky', 'moon']) {
      await hub.api('POST', '/api/command', {
        command: 'spawn', name, worktree: true, work_dir: repo, args: ['--permission-mode', 'acceptEdits'],
      });
    }
    await ev.state('sky', 'idle', m, 90000);
    await ev.state('moon', 'idle', m, 90000);
    m = ev.mark();
    const sky = join(hub.data, 'worktrees/sky');
    const moon = join(hub.data, 'worktrees/moon');

    // Each writes notes.txt with Claude Code's Write tool, in its own worktree.
    for (const [name, dir] of [['sky', sky], ['moon', moon]]) {
      const done = writes(join(dir, 'notes.txt'));
      await hub.api('POST', `/api/sessions/${name}/messages`, { text: `write ${join(dir, 'notes.txt')} ${name} was here` });
      await within(done, 60000, `${name}'s Write`);
    }
    // The real PostToolUse hooks told the window that both agents' changes moved.
    const told = ev.seen.filter((e) => e.type === 'changes').map((e) => e.session_id);
    assert.ok(told.includes('sky') && told.includes('moon'), JSON.stringify(told));
    assert.equal(readFileSync(join(sky, 'notes.txt'), 'utf8'), 'sky was here\n');
    assert.equal(readFileSync(join(moon, 'notes.txt'), 'utf8'), 'moon was here\n');
    assert.equal(existsSync(join(repo, 'notes.txt')), false, 'the user\'s checkout is untouched');
    const changes = await hub.api('POST', '/api/command', { command: 'changes', session_id: 'sky' });
    assert.deepEqual(changes.files.map((f) => [f.path, f.status, f.added]), [['notes.txt', 'added', 1]]);

    // Both added notes.txt with other lines: the forecast says they would conflict, to both.
    const forecast = await ev.event('forecast', 'sky', m, (e) => e.overlaps.length > 0, 30000);
    assert.deepEqual(forecast.overlaps, [{ other: 'moon', conflicts: ['notes.txt'], same_files: [] }]);
    await ev.event('forecast', 'moon', m, (e) => e.overlaps[0]?.conflicts[0] === 'notes.txt', 30000);

    // A review of sky's line reaches the model as the user's message, naming the file and the line.
    const review = 'Review of your changes (one comment):\n\n1. notes.txt:1\n   > sky was here\n   Say where.';
    m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: review });
    await ev.event('assistant_text', 'sky', m, (e) => e.text === 'heard', 60000);
    assert.ok(heard.some((h) => h.includes('1. notes.txt:1') && h.includes('> sky was here')), JSON.stringify(heard));

    // sky's work, committed (by the user, as they might), goes into main as one commit.
    git(sky, ['add', 'notes.txt']);
    git(sky, ['commit', '-q', '-m', 'Sky\'s notes']);
    const merged = hub.clawmux(['merge', 'sky', '--squash', '-m', 'Notes from sky']);
    assert.match(merged, /^sky merged into main: /);
    assert.equal(git(repo, ['log', '-1', '--format=%s']).trim(), 'Notes from sky');
    assert.equal(readFileSync(join(repo, 'notes.txt'), 'utf8'), 'sky was here\n');

    // moon's note is in no commit: ended, its worktree is not removed without a discard.
    m = ev.mark();
    hub.clawmux(['terminate', 'moon']);
    let refused = '';
    try {
      hub.clawmux(['worktree', 'remove', 'moon']);
    } catch (e) {
      refused = String(e.stderr);
    }
    assert.match(refused, /1 file not committed \(notes\.txt\)/);
    assert.equal(readFileSync(join(moon, 'notes.txt'), 'utf8'), 'moon was here\n');
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});
