// The Changes panel in Chromium: a demo agent in a worktree of its own of a real repository (the user's
// git), its diff drawn when the panel opens and again when one of its tool calls ends (the hub's `changes`
// event, no polling), a comment on a line sent to the agent as a review naming the file and line, a squash
// merge from the panel landing on the user's branch, a conflict named before anything is written, and the
// new-agent form offering a worktree of its own in a repository another agent works in, and terminating
// asking what becomes of the worktree, never offering to remove work that is nowhere else; and the conflict
// forecast between two agents in both rows of the sidebar and the panel, cleared when one goes.
// The diff's and the review's pure functions are tested first, with no page.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePatch, place, reviewMessage } from '../../ui/js/diff.js';
import { describe } from '../../ui/js/forecast.js';
import { ARTIFACTS, openBrowser, openUi, startHub, watchEvents } from './harness.mjs';

function git(dir, args) {
  return execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
}

/** A repository on `main` with one commit and the user's identity, in the hub's temporary folder. */
function repository(hub) {
  const repo = join(hub.dir, 'app');
  mkdirSync(join(repo, 'src'), { recursive: true });
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['config', 'user.name', 'Test']);
  git(repo, ['config', 'user.email', 'test@example.com']);
  writeFileSync(join(repo, 'src/a.rs'), 'fn a() {}\n');
  writeFileSync(join(repo, 'README'), 'app\n');
  git(repo, ['add', '.']);
  git(repo, ['commit', '-q', '-m', 'first']);
  return repo;
}

test('a unified diff is read line by line, and a review names each file and line', () => {
  const rows = parsePatch([
    'diff --git a/src/a.rs b/src/a.rs',
    'index 1..2 100644',
    '--- a/src/a.rs',
    '+++ b/src/a.rs',
    '@@ -1,3 +1,3 @@',
    ' fn a() {}',
    '-fn old() {}',
    '+fn new() {}',
    '+fn more() {}',
    '\\ No newline at end of file',
    '',
  ].join('\n'));
  assert.deepEqual(rows.map((r) => [r.kind, r.old, r.new]), [
    ['meta', null, null], ['meta', null, null], ['meta', null, null], ['meta', null, null],
    ['hunk', null, null], ['ctx', 1, 1], ['del', 2, null], ['add', null, 2], ['add', null, 3], ['note', null, null],
  ]);
  const [ctx, del, add, more] = rows.slice(5, 9);
  assert.equal(place({ path: 'src/a.rs', from: add, to: add }), 'src/a.rs:2');
  assert.equal(place({ path: 'src/a.rs', from: ctx, to: more }), 'src/a.rs:1-3');
  assert.equal(place({ path: 'src/a.rs', from: del, to: del }), 'src/a.rs: removed line 2');
  assert.equal(
    reviewMessage([
      { path: 'src/a.rs', from: add, to: more, lines: ['fn new() {}', 'fn more() {}'], text: 'Why two?' },
      { path: 'README', from: ctx, to: ctx, lines: ['app'], text: 'Say more\nhere.' },
    ]),
    'Review of your changes (2 comments):\n\n'
      + '1. src/a.rs:2-3\n   > fn new() {}\n   > fn more() {}\n   Why two?\n\n'
      + '2. README:1\n   > app\n   Say more\n   here.',
  );
});

test('the conflict forecast is said from the same lines down to nothing', () => {
  assert.deepEqual(describe([]), { level: null, short: '', long: '' });
  assert.deepEqual(describe([{ other: 'moon', conflicts: [], same_files: ['a.rs'] }]), {
    level: 'overlap', short: 'Same files as moon', long: 'With moon: the same files in a.rs.',
  });
  assert.deepEqual(describe([
    { other: 'moon', conflicts: [], same_files: ['a.rs'] },
    { other: 'rain', conflicts: ['b.rs'], same_files: ['c.rs', 'd.rs'] },
  ]), {
    level: 'conflict',
    short: 'Would conflict with rain',
    long: 'With moon: the same files in a.rs. With rain: the same lines in b.rs; the same files in c.rs, d.rs.',
  });
});

test('the Changes panel shows an agent\'s worktree live, sends a review and merges it', async () => {
  const hub = await startHub();
  const browser = await openBrowser();
  try {
    const repo = repository(hub);
    const events = await watchEvents(hub.port, hub.token);
    let mark = events.mark();
    await hub.api('POST', '/api/command', { command: 'spawn', name: 'sky', demo: true, worktree: true, work_dir: repo });
    await events.state('sky', 'idle', mark, 20000);
    const wt = join(hub.data, 'worktrees/sky');
    const { page, errors } = await openUi(browser, hub);
    await page.click('[data-agent="sky"]');
    await page.waitForSelector('#act-changes:not([hidden])');
    await page.click('#act-changes');
    await page.waitForSelector('#changes-panel:not([hidden]) .changes-files .none');
    assert.match(await page.textContent('#changes-summary'), /^clawmux\/sky from main · 0 commits · 0 files/);

    // The agent edits a file; its tool call ends; the panel draws the diff without being asked.
    writeFileSync(join(wt, 'src/a.rs'), 'fn a() {}\nfn sky() {}\n');
    const hook = { hook_event_name: 'PostToolUse', session_id: 'c0ffee', cwd: wt, tool_name: 'Edit', tool_use_id: 'toolu_1', tool_input: {}, tool_response: {} };
    mark = events.mark();
    await hub.api('POST', '/api/hooks/tool-status', hook, 'sky');
    await events.event('changes', 'sky', mark);
    await page.waitForSelector('.changed-file[data-path="src/a.rs"]');
    assert.equal(await page.textContent('.changed-file[data-path="src/a.rs"] .counts'), '+1 −0');
    assert.match(await page.textContent('#changes-summary'), /1 file \+1 −0 · changes not committed yet/);
    assert.equal(await page.textContent('section[data-path="src/a.rs"] .dl.add .code'), 'fn sky() {}');
    // A read-only tool changes nothing: no event.
    mark = events.mark();
    await hub.api('POST', '/api/hooks/tool-status', { ...hook, tool_name: 'Read', tool_use_id: 'toolu_2' }, 'sky');
    await hub.api('POST', '/api/hooks/tool-status', { ...hook, tool_name: 'Bash', tool_use_id: 'toolu_3' }, 'sky');
    const next = await events.event('changes', 'sky', mark);
    assert.equal(events.seen.filter((e, i) => i >= mark && i < events.seen.indexOf(next) && e.type === 'changes').length, 0);

    // A comment on the added line goes to the agent as a review that names the file and the line.
    await page.click('section[data-path="src/a.rs"] .dl.add .ln');
    await page.fill('.comment-draft textarea', 'Call it moon instead.');
    await page.click('.comment-draft button[type=submit]');
    assert.match(await page.textContent('#review-comments'), /src\/a\.rs:2: Call it moon instead\./);
    await page.screenshot({ path: join(ARTIFACTS, 'changes-panel.png') });
    mark = events.mark();
    await page.click('#review-send');
    const review = await events.event('user_text', 'sky', mark);
    assert.equal(review.text, 'Review of your changes (one comment):\n\n1. src/a.rs:2\n   > fn sky() {}\n   Call it moon instead.');
    assert.equal(await page.isVisible('#review'), false);

    // Not committed yet: the merge says so and writes nothing.
    await page.selectOption('#merge-mode', 'squash');
    await page.click('#merge-go');
    await page.waitForSelector('#merge-result.error');
    assert.match(await page.textContent('#merge-result'), /not all committed/);

    // Committed: a squash merge from the panel lands one commit on the user's main, with the message typed.
    git(wt, ['commit', '-q', '-am', 'Add sky']);
    mark = events.mark();
    await hub.api('POST', '/api/hooks/tool-status', { ...hook, tool_name: 'Bash', tool_use_id: 'toolu_4' }, 'sky');
    await page.waitForFunction(() => /1 commit ·/.test(document.querySelector('#changes-summary').textContent));
    assert.match(await page.inputValue('#merge-message'), /Add sky/);
    await page.fill('#merge-message', 'Sky adds sky()');
    await page.click('#merge-go');
    await page.waitForFunction(() => /^Merged into main/.test(document.querySelector('#merge-result').textContent));
    assert.equal(git(repo, ['log', '-1', '--format=%s']).trim(), 'Sky adds sky()');
    assert.equal(readFileSync(join(repo, 'src/a.rs'), 'utf8'), 'fn a() {}\nfn sky() {}\n');
    await page.waitForSelector('.changes-files .none');

    // A conflict is named before anything is written.
    writeFileSync(join(wt, 'README'), 'sky\n');
    git(wt, ['commit', '-q', '-am', 'Sky\'s readme']);
    writeFileSync(join(repo, 'README'), 'user\n');
    git(repo, ['commit', '-q', '-am', 'The user\'s readme']);
    const before = git(repo, ['rev-parse', 'HEAD']);
    await hub.api('POST', '/api/hooks/tool-status', { ...hook, tool_name: 'Bash', tool_use_id: 'toolu_5' }, 'sky');
    await page.waitForSelector('.changed-file[data-path="README"]');
    await page.click('#merge-go');
    await page.waitForFunction(() => /conflict in README/.test(document.querySelector('#merge-result.error')?.textContent ?? ''));
    assert.equal(git(repo, ['rev-parse', 'HEAD']), before);
    assert.equal(git(repo, ['status', '--porcelain']), '');

    // A second agent in the same repository: the form offers a worktree of its own, ticked, since sky works
    // there; the new agent gets its own branch.
    await page.click('#new-agent');
    await page.fill('#spawn-name', 'moon');
    await page.check('#spawn-demo');
    await page.fill('#spawn-dir', join(repo, 'src'));
    await page.waitForSelector('#spawn-repo:not([hidden])');
    assert.equal(await page.isChecked('#spawn-worktree'), true);
    assert.match(await page.textContent('#spawn-repo-hint'), /sky already works in .*app: a worktree keeps them apart/);
    assert.equal(await page.getAttribute('#spawn-base', 'placeholder'), 'main');
    mark = events.mark();
    await page.click('#spawn-form button[type=submit]');
    const spawned = await events.event('session_spawned', 'moon', mark);
    assert.equal(spawned.session.branch, 'clawmux/moon');
    assert.equal(git(join(hub.data, 'worktrees/moon'), ['symbolic-ref', '--short', 'HEAD']).trim(), 'clawmux/moon');
    // The form starts over when the page has the spawn's answer, which may come after the feed's event.
    await page.waitForSelector('#spawn-repo', { state: 'hidden', timeout: 5000 });

    // The conflict forecast: moon edits README, which sky's unmerged commit changes too (and the user's
    // commit moon started from). Both rows say so, before either merges.
    // Marked before the edit: whatever looks next (this tool's end, or moon's own start) tells it, once.
    const moonWt = join(hub.data, 'worktrees/moon');
    mark = events.mark();
    writeFileSync(join(moonWt, 'README'), 'moon\n');
    await hub.api('POST', '/api/hooks/tool-status', { ...hook, cwd: moonWt, tool_use_id: 'toolu_6' }, 'moon');
    // The hub gives git 30 s to forecast; a loaded machine takes more than the default 10 s.
    await events.event('forecast', 'sky', mark, (e) => e.overlaps.length > 0, 30000);
    await page.waitForSelector('[data-agent="sky"][data-overlap="conflict"]');
    await page.waitForSelector('[data-agent="moon"][data-overlap="conflict"]');
    assert.equal(await page.textContent('[data-agent="sky"] .overlap'), 'Would conflict with moon');
    assert.equal(await page.getAttribute('[data-agent="moon"] .overlap', 'title'), 'With sky: the same lines in README.');
    await page.click('[data-agent="sky"]');
    await page.waitForSelector('#changes-forecast:not([hidden])');
    assert.equal(await page.textContent('#changes-forecast'), 'With moon: the same lines in README.');

    // Terminating asks what becomes of the worktree. moon's edit undone, it holds nothing that is nowhere
    // else: it may go.
    // From here sky's forecast clears: at the first look after moon's edit is undone, or after the removal.
    const clearing = events.mark();
    git(moonWt, ['checkout', '--', 'README']);
    await page.click('[data-agent="moon"]');
    await page.click('#act-terminate');
    await page.waitForSelector('#terminate-ask:not([hidden])');
    assert.match(await page.textContent('#ta-text'), /^Terminate moon\? Its worktree \(clawmux\/moon, .* MB\) holds nothing that is not in another branch\.$/);
    assert.equal(await page.isHidden('#ta-discard'), true);
    mark = events.mark();
    await page.click('#ta-remove');
    await events.event('session_terminated', 'moon', mark);
    await events.event('changes', 'moon', mark);
    assert.equal(existsSync(join(hub.data, 'worktrees/moon')), false);
    assert.equal(git(repo, ['branch', '--list', 'clawmux/moon']), '');
    // With moon's worktree gone, sky's forecast clears.
    await events.event('forecast', 'sky', clearing, (e) => e.overlaps.length === 0, 30000);
    await page.waitForSelector('[data-agent="sky"]:not([data-overlap])');
    // sky's holds a commit no other branch has: removing is not offered, only keeping or discarding.
    await page.click('[data-agent="sky"]');
    await page.click('#act-terminate');
    await page.waitForSelector('#terminate-ask:not([hidden])');
    assert.match(await page.textContent('#ta-text'), /holds 1 commit in no other branch\.$/);
    assert.equal(await page.isHidden('#ta-remove'), true);
    assert.equal(await page.isVisible('#ta-discard'), true);
    mark = events.mark();
    await page.click('#ta-keep');
    await events.event('session_terminated', 'sky', mark);
    assert.equal(git(wt, ['log', '-1', '--format=%s']).trim(), 'Sky\'s readme', 'kept');
    assert.deepEqual(errors, []);
    events.close();
  } finally {
    await browser.close();
    hub.stop();
  }
});
