// What the chat area shows of the agent on screen besides its messages: the status line under them (as
// docs/STATE-MACHINE.md's table says), the actions ClawMux can take on it, and whether it can be written to.

import { $ } from './dom.js';
import { Command, Launch, Need, State } from './names.js';
import { agentDetail, clock } from './usage.js';

/** The status line: "Needs you" first, else the state's own line. */
export function showStatus(s) {
  const status = $('chat-status');
  status.replaceChildren();
  status.className = 'chat-status';
  if (s.needs?.need === Need.RATE_LIMITED) {
    // Claude Code's own words say which limit and when it resets; nothing to answer but the wait.
    status.classList.add('rate-limited');
    const { until, continues_at: at } = s.usage?.limited ?? {};
    let then = '';
    if (at) then = ` ClawMux continues it at ${clock(at)}.`;
    else if (until && until <= Date.now()) then = ' The limit has reset: tick "Continue after the limit resets" to go on.';
    status.textContent = `Rate-limited: ${s.needs.reason}${then}`;
    return;
  }
  if (s.needs) {
    status.classList.add('needs-you');
    status.textContent = `Needs you: ${s.needs.reason}`;
    return;
  }
  switch (s.state) {
    case State.IDLE:
      status.textContent = s.activity || 'Waiting';
      break;
    case State.PROCESSING:
    case State.COMPACTING: {
      const dots = document.createElement('span');
      dots.className = 'thinking';
      dots.setAttribute('aria-label', 'Thinking');
      dots.append(document.createElement('span'), document.createElement('span'), document.createElement('span'));
      status.append(dots);
      break;
    }
    case State.DEAD:
      status.textContent = 'Offline';
      break;
    default:
      break;
  }
}

/** Interrupt, restart and terminate, for the agents ClawMux runs (not for those that run on their own). */
export function showActions(s) {
  const managed = s.launch === Launch.CLAUDE || s.launch === Launch.DEMO;
  $('agent-actions').hidden = !managed;
  const running = s.state !== State.DEAD;
  $('act-interrupt').hidden = !running || s.launch === Launch.DEMO;
  $('act-terminate').hidden = !running;
  $('act-restart').textContent = running ? 'Restart' : 'Start';
  $('act-model').hidden = s.launch !== Launch.CLAUDE;
  $('act-effort').hidden = s.launch !== Launch.CLAUDE;
}

/**
 * The model and effort choices in the header: Claude Code takes both at start, so a choice starts the agent again
 * with it, its conversation resumed (the header's figures then name the model its status line reports).
 * Refused, with the reason, while the agent works. `current()` is the agent on screen.
 */
export function wireModelChoice(backend, current, notice) {
  const choose = (select, what, command) => $(select).addEventListener('change', async (e) => {
    const choice = e.target.value;
    e.target.value = '';
    if (!choice || !current()) return;
    notice('');
    try {
      await backend.command(command(current(), choice === 'default' ? null : choice));
    } catch (err) {
      notice(`The ${what} stays: ${err.message}`);
    }
  });
  choose('act-model', 'model', (agent, model) => ({ command: Command.SET_MODEL, session_id: agent, model }));
  choose('act-effort', 'effort', (agent, effort) => ({ command: Command.SET_EFFORT, session_id: agent, effort }));
}

/** Chat is for the agents that read it: an observed session (ClawMux did not start it) shows its state only. */
export function showComposer(s) {
  const observed = s.launch === Launch.OBSERVED;
  $('input').disabled = observed;
  $('send').disabled = observed;
  $('attach').disabled = observed;
  $('input').placeholder = observed
    ? 'Observed only: ClawMux did not start this Claude Code session, so it cannot send it messages.'
    : 'Message (Enter sends, Shift+Enter for a new line, / for commands)';
}

/**
 * "Continue after the limit resets" as the user last set it, per agent, until a row from the hub says the
 * same: a row drawn meanwhile (a status line's figures, made before the choice reached the hub) must not
 * undo the click.
 */
const continuing = new Map();

/** "Continue after the limit resets" sent to the hub as the user sets it, for the agent `current()`. */
export function wireContinue(backend, current, notice) {
  $('act-continue').addEventListener('change', async (e) => {
    const agent = current();
    if (!agent) return;
    notice('');
    continuing.set(agent, e.target.checked);
    try {
      await backend.command({ command: Command.USAGE_CONTINUE, session_id: agent, on: e.target.checked });
    } catch (err) {
      continuing.delete(agent);
      e.target.checked = !e.target.checked;
      notice(`Cannot change it: ${err.message}`);
    }
  });
}

/** Everything above, for the agent's row `s`. */
export function showAgent(s) {
  $('agent-usage').textContent = agentDetail(s.usage);
  const managed = s.launch === Launch.CLAUDE;
  $('agent-continue').hidden = !managed;
  const continues = Boolean(s.usage?.continues);
  if (continuing.get(s.session_id) === continues) continuing.delete(s.session_id);
  $('act-continue').checked = continuing.get(s.session_id) ?? continues;
  showStatus(s);
  showActions(s);
  showComposer(s);
}

/** The agent header as a panel of the page (`panels.js`). */
export const agentHeader = {
  show: (_agent, row) => showAgent(row ?? {}),
  update: (row) => showAgent(row),
};
