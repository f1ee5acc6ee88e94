// Two real Claude Code CLIs (pinned, from npm) as ClawMux spawns them, each driven by the scripted model:
// the user asks sky to ask moon; sky runs `clawmux ask moon ...`, moon's wait prints the question, moon
// answers with `clawmux send --re`, sky's ask prints the answer and sky tells the user, then thanks moon.
// Every message between them ends seen by the other's model (the transcripts have it), the question
// answered, the thanks kept and never a turn of moon's. Prints the whole hop: the question stored to moon's
// model receiving it. Three real agents and the board: sky adds an item, moon and rain take it at once, one
// wins and finishes it, the other's model is told who has it, and sky's is told it is done.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { startHub } from './harness.mjs';
import { bash, claudeBinary, claudeEnv, prepareHome, startModel } from './real-claude.mjs';

let claude;
before(() => { claude = claudeBinary(); });

/** The agent a request is of: its instructions name it. */
const whoAsks = (body) => /You are `([a-z]+)`/.exec(JSON.stringify(body))?.[1];

/** The command the model ran last in this conversation, if a Bash call. */
function lastCommand(body) {
  const previous = (body.messages ?? []).findLast((x) => x.role === 'assistant');
  const tool = Array.isArray(previous?.content) ? previous.content.find((b) => b.type === 'tool_use') : null;
  return tool?.name === 'Bash' ? tool.input?.command ?? '' : '';
}

/**
 * Colleagues: a user's `ask <agent>: <question>` is asked with `clawmux ask`; another agent's question is
 * answered with `clawmux send --re`; an ask's answer is told to the user, then thanked for; else they wait.
 */
function colleagues(turnsOf) {
  return ({ body, last }) => {
    const me = whoAsks(body) ?? '?';
    turnsOf.set(me, [...(turnsOf.get(me) ?? []), { at: Date.now(), last }]);
    const fromUser = /\[MSG id:msg-[0-9a-f]{8} from:user\] ask (\w+): (.*)/.exec(last);
    if (fromUser) return bash(`clawmux ask ${fromUser[1]} '${fromUser[2].replace(/'/g, '')}' --timeout 120`, `ask ${fromUser[1]}`);
    const question = /\[MSG id:(msg-[0-9a-f]{8}) from:(\w+)\] (.*\?)/.exec(last);
    if (question && question[2] !== 'user') return bash(`clawmux send --to ${question[2]} --re ${question[1]} 'port 8080'`, 'answer a colleague');
    const answer = /\[MSG id:(msg-[0-9a-f]{8}) from:(\w+)\] (port \d+)/.exec(last);
    if (answer && lastCommand(body).startsWith('clawmux ask')) {
      return bash(`clawmux send --to user '${answer[2]} says ${answer[3]} (${answer[1]})'`, 'tell the user');
    }
    const told = /clawmux send --to user '(\w+) says port \d+ \((msg-[0-9a-f]{8})\)'/.exec(lastCommand(body));
    if (told) return bash(`clawmux send --to ${told[1]} --re ${told[2]} 'Thanks!'`, 'thank a colleague');
    return bash('clawmux wait', 'wait for the next message');
  };
}

test('two real agents: an ask answered through the other agent, every message seen, the thanks not a turn', async () => {
  const turnsOf = new Map();
  const model = await startModel(colleagues(turnsOf));
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  prepareHome(hub.dir, ['sky', 'moon'].map((a) => join(hub.data, 'agents', a)));
  const ev = await hub.events();
  try {
    for (const name of ['sky', 'moon']) {
      const m = ev.mark();
      hub.clawmux(['spawn', name, '--', '--permission-mode', 'default']);
      await ev.state(name, 'idle', m, 90000);
    }
    let m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'ask moon: which port does the API use?' });
    const told = await ev.event('assistant_text', 'sky', m, (e) => /moon says port 8080/.test(e.text), 120000);
    const [, answerId] = /\((msg-[0-9a-f]{8})\)/.exec(told.text);
    // Sky thanks moon, then both wait again; the thanks never wakes moon.
    await ev.event('user_ack', 'moon', m, () => true, 60000);
    await ev.state('sky', 'idle', m, 60000);
    const thread = await hub.api('POST', '/api/command', { command: 'thread', a: 'sky', b: 'moon' });
    const byText = Object.fromEntries(thread.map((p) => [p.message.text, p]));
    const question = byText['which port does the API use?'];
    assert.equal(question?.delivery, 'answered', JSON.stringify(thread));
    assert.equal(question.answered_by, answerId);
    assert.ok(question.seen_at, `moon's transcript never showed the question: ${JSON.stringify(question)}`);
    const answer = byText['port 8080'];
    assert.equal(answer.message.id, answerId);
    assert.equal(answer.delivery, 'seen', `sky's model received the answer through its ask: ${JSON.stringify(answer)}`);
    assert.equal(byText['Thanks!']?.delivery, 'not_a_turn');
    const moonTurns = turnsOf.get('moon') ?? [];
    assert.ok(!moonTurns.some((t) => /Thanks!/.test(t.last)), 'the thanks reached moon as a turn');
    // The whole hop: the question stored, to moon's model receiving it (its wait printing it, the CLI's
    // next request).
    const received = moonTurns.find((t) => t.last.includes(question.message.id));
    assert.ok(received, 'moon\'s model never received the question');
    console.log(`whole hop with the real CLI: question stored to moon's model receiving it ${received.at - question.message.at} ms; seen recorded ${question.seen_at - question.message.at} ms after`);
  } catch (e) {
    for (const [who, turns] of turnsOf) console.log(`${who}: ${turns.map((t) => JSON.stringify(t.last.slice(0, 300))).join('\n  ')}`);
    throw e;
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});

/**
 * The board's workers: the user's `add task: <title>` is added with `clawmux task add`; the user's `take
 * task N` is taken; a take that wins is done at once; one refused is told to the user; an item done (its
 * creator is told) is told to the user; else they wait.
 */
function workers(turnsOf) {
  return ({ body, last }) => {
    const me = whoAsks(body) ?? '?';
    turnsOf.set(me, [...(turnsOf.get(me) ?? []), { at: Date.now(), last }]);
    const ran = lastCommand(body);
    const add = /from:user\] add task: (.*)/.exec(last);
    if (add) return bash(`clawmux task add '${add[1].replace(/'/g, '')}'`, 'add an item');
    const take = /from:user\] take task (\d+)/.exec(last);
    if (take) return bash(`clawmux task take ${take[1]}`, 'take an item');
    const won = /^#(\d+) {2}taken {2}(\w+)/m.exec(last);
    if (won && ran.startsWith('clawmux task take') && won[2] === me) return bash(`clawmux task done ${won[1]}`, 'finish it');
    if (ran.startsWith('clawmux task take') && /task_refused/.test(last)) {
      const whose = (/#\d+ is \w+'s/.exec(last)?.[0] ?? 'refused').replace(/'/g, '');
      return bash(`clawmux send --to user 'not mine: ${whose}'`, 'say it was taken');
    }
    const done = /from:(\w+)\] Task #(\d+) is done/.exec(last);
    if (done) return bash(`clawmux send --to user '${done[1]} finished task ${done[2]}'`, 'tell the user');
    return bash('clawmux wait', 'wait for the next message');
  };
}

test('three real agents and the board: one adds an item, two take it at once, one wins and finishes it, the adder is told', async () => {
  const turnsOf = new Map();
  const model = await startModel(workers(turnsOf));
  const hub = await startHub({ env: { CLAWMUX_CLAUDE: claude, ...claudeEnv(model.port) } });
  const agents = ['sky', 'moon', 'rain'];
  prepareHome(hub.dir, agents.map((a) => join(hub.data, 'agents', a)));
  const ev = await hub.events();
  try {
    for (const name of agents) {
      const m = ev.mark();
      hub.clawmux(['spawn', name, '--', '--permission-mode', 'default']);
      await ev.state(name, 'idle', m, 90000);
    }
    let m = ev.mark();
    await hub.api('POST', '/api/sessions/sky/messages', { text: 'add task: write the docs' });
    await ev.until((e) => e.type === 'task' && e.task?.title === 'write the docs', 120000, 'the item added');
    const [item] = await hub.api('POST', '/api/command', { command: 'board' });
    assert.equal(item?.creator, 'sky', JSON.stringify(item));
    m = ev.mark();
    await Promise.all(['moon', 'rain'].map((a) => hub.api('POST', `/api/sessions/${a}/messages`, { text: `take task ${item.id}` })));
    const told = await ev.event('assistant_text', 'sky', m, (e) => /finished task/.test(e.text), 180000);
    const winner = /(\w+) finished task/.exec(told.text)[1];
    const loser = winner === 'moon' ? 'rain' : 'moon';
    const refused = await ev.event('assistant_text', loser, m, (e) => /not mine/.test(e.text), 120000);
    assert.match(refused.text, new RegExp(`#${item.id} is ${winner}s`));
    const [after] = await hub.api('POST', '/api/command', { command: 'board' });
    assert.deepEqual([after.state, after.owner], ['done', winner]);
  } catch (e) {
    for (const [who, turns] of turnsOf) console.log(`${who}: ${turns.map((t) => JSON.stringify(t.last.slice(0, 300))).join('\n  ')}`);
    throw e;
  } finally {
    ev.close();
    hub.stop();
    await model.close();
  }
});
