// The real Claude Code CLI of two versions as ClawMux spawns it: the oldest ClawMux supports, whose
// settings name no hook event it does not know (it would refuse them in part, with a dialog), and the
// newest the tests know, whose skills' shell commands (PreSkillShellCommand, new in 2.1.332) show as the
// agent's activity.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHub } from './harness.mjs';
import { bash, claudeBinary, claudeEnv, follower, OLDEST_CLAUDE_VERSION, prepareHome, spawnSky, startModel } from './real-claude.mjs';

/** A hub whose agents are the real CLI at `claude`, talking to `model`. */
async function realHub(model, claude) {
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  prepareHome(hub.dir, [join(hub.data, 'agents', 'sky')]);
  return hub;
}

test(`the oldest Claude Code ClawMux supports (${OLDEST_CLAUDE_VERSION}) runs as an agent, given only the hooks it knows`, async () => {
  const model = await startModel(follower());
  const hub = await realHub(model, claudeBinary(OLDEST_CLAUDE_VERSION));
  const ev = await hub.events();
  try {
    const settings = await spawnSky(hub, ev);
    assert.equal(settings.hooks.PreSkillShellCommand, undefined, 'an event it does not know');
    assert.ok(settings.hooks.PreToolUse && settings.hooks.Stop && settings.hooks.PermissionRequest);
    const m = ev.mark();
    const sent = await hub.api('POST', '/api/sessions/sky/messages', { text: 'ping old' });
    const answer = await ev.event('assistant_text', 'sky', m, (e) => e.parent_id === sent.id, 60000);
    assert.equal(answer.text, 'heard: ping old');
    await ev.state('sky', 'idle', ev.seen.indexOf(answer), 60000);
  } finally {
    ev.close();
    await hub.stop();
    await model.close();
  }
});

test("a skill's shell command shows as the agent's activity (PreSkillShellCommand)", async () => {
  const model = await startModel(({ last }) => {
    if (/\[MSG id:msg-[0-9a-f]{8} from:user\] run the check/.test(last)) return { tool: { name: 'Skill', input: { skill: 'check' } } };
    if (/The build says: build-fine/.test(last)) return bash(`clawmux send --to user 'the build is fine'`, 'report');
    return bash('clawmux wait', 'wait for the next message');
  });
  const hub = await realHub(model, claudeBinary());
  // A skill of the agent's folder whose text runs a command as it loads, which it may run without asking.
  const work = join(hub.data, 'agents', 'sky');
  mkdirSync(join(work, '.claude', 'skills', 'check'), { recursive: true });
  writeFileSync(join(work, '.claude', 'skills', 'check', 'SKILL.md'),
    '---\nname: check\ndescription: checks the build\nallowed-tools: Bash(echo:*)\n---\nThe build says: !`echo build-fine`\n');
  mkdirSync(join(work, '.claude'), { recursive: true });
  writeFileSync(join(work, '.claude', 'settings.local.json'), JSON.stringify({ permissions: { allow: ['Skill(check)'] } }));
  const ev = await hub.events();
  try {
    const settings = await spawnSky(hub, ev);
    assert.ok(settings.hooks.PreSkillShellCommand, 'the newest Claude Code is given the event');
    const m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'run the check' });
    const running = await ev.event('session_status', 'sky', m, (e) => /^Running check: echo build-fine$/.test(e.activity), 60000);
    assert.equal(running.state, 'processing');
    await ev.event('assistant_text', 'sky', m, (e) => e.text === 'the build is fine', 60000);
    await ev.state('sky', 'idle', m, 60000);
    // Kept among the agent's events, as Claude Code sent it.
    const log = await fetch(`http://127.0.0.1:${hub.port}/api/sessions/sky/log/events?limit=500`, {
      headers: { Authorization: `Bearer ${hub.token}` },
    });
    const skills = (await log.text()).split('\n').filter((line) => line.includes('"PreSkillShellCommand"'));
    assert.equal(skills.length, 1, 'one skill command, one event');
  } finally {
    ev.close();
    await hub.stop();
    await model.close();
  }
});
