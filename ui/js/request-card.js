// The card of what the agent on screen needs from the user (docs/PROTOCOL.md, `answer`): a permission
// (what the tool will do: the command, the file and its change as a diff, the address), a question with its
// options, or a plan to approve. Its buttons send the user's decision; the hub passes it to Claude Code.
// The card follows the agent's `needs.request`: it closes when the request ends, however it ended, and a
// click that comes too late says so instead of deciding twice.
//
// What the card cannot answer (a dialog no hook reports, a login or rate-limit menu, "needs you" with no
// open request) it points to the agent's terminal for, with a button that opens it; every card of an agent
// ClawMux runs has that button too, for the answers the card does not offer.
//
// Everything an agent wrote goes in as text (textContent), or through markdown.js for a plan.

import { $, notice } from './dom.js';
import { renderInto } from './markdown.js';
import { Command, Launch, PermissionMode, Verdict } from './names.js';

/** An element with a class and text. */
function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A rule Claude Code suggests for "always allow", in words. */
function suggestionText(s) {
  switch (s?.type) {
    case 'addRules':
      return `Always allow ${(s.rules ?? []).map((r) => (r.ruleContent ? `${r.toolName}(${r.ruleContent})` : r.toolName)).join(', ')}`;
    case 'addDirectories':
      return `Always allow in ${(s.directories ?? []).join(', ')}`;
    case 'setMode':
      return `Switch to ${s.mode} mode`;
    default:
      return 'Always allow';
  }
}

/** Lines of a change as a diff: the old text's lines with `-` (none when it was empty), the new one's with
 * `+` (none when there is none). */
function diffLines(before, after) {
  const old = before ? String(before).split('\n').map((l) => ['del', `- ${l}`]) : [];
  const added = after !== undefined ? String(after).split('\n').map((l) => ['add', `+ ${l}`]) : [];
  return [...old, ...added];
}

/** What the tool will do, as elements. */
function describe(tool, input) {
  const out = [];
  const code = (text) => { const pre = el('pre', 'request-code'); pre.textContent = text; return pre; };
  const diff = (before, after) => {
    const pre = el('pre', 'request-diff');
    for (const [kind, line] of diffLines(before, after)) pre.append(el('span', kind, `${line}\n`));
    return pre;
  };
  switch (tool) {
    case 'Bash':
      if (input.description) out.push(el('p', 'request-what', input.description));
      out.push(code(input.command ?? ''));
      break;
    case 'Edit':
      out.push(el('p', 'request-what', input.file_path), diff(input.old_string, input.new_string));
      break;
    case 'MultiEdit':
      out.push(el('p', 'request-what', input.file_path));
      for (const e of input.edits ?? []) out.push(diff(e.old_string, e.new_string));
      break;
    case 'Write':
      out.push(el('p', 'request-what', input.file_path), diff(undefined, input.content));
      break;
    case 'WebFetch':
      out.push(el('p', 'request-what', input.url));
      if (input.prompt) out.push(el('p', 'request-detail', input.prompt));
      break;
    default:
      out.push(code(JSON.stringify(input ?? {}, null, 2)));
  }
  return out;
}

export class RequestCard {
  /** `backend` sends the answers; `openTerminal()` shows the agent's terminal; `element` is the card's place. */
  constructor(backend, { openTerminal }, element = $('request')) {
    this.backend = backend;
    this.openTerminal = openTerminal;
    this.element = element;
    this.shown = null;
  }

  /** Shows what `agent` (its sidebar row) needs: its open request, or where to answer what has none; hides
   * the card when it needs nothing. */
  /** The row of the agent on screen changed. */
  update(row) {
    this.show(row.session_id, row);
  }

  show(agent, row) {
    const needs = row?.needs ?? null;
    const request = needs?.request ?? null;
    const terminal = row?.launch === Launch.CLAUDE || row?.launch === Launch.DEMO;
    const inTerminal = needs && !request && terminal;
    const key = request ? `${agent}/${request.id}` : inTerminal ? `${agent}/terminal/${needs.reason}` : null;
    if (key === this.shown) return;
    // A request on screen that went without an answer from here was answered elsewhere (a notification,
    // the phone, a voice, the terminal): said, rather than the card vanishing, until the agent needs
    // something else or another agent is shown.
    const pending = this.requestShown;
    this.requestShown = request ? key : null;
    const elsewhere = !request && ((pending?.startsWith(`${agent}/`) && pending !== this.answered) || (this.elsewhereOf === agent && key === null));
    this.shown = key;
    this.elsewhereOf = elsewhere ? agent : null;
    this.element.replaceChildren();
    this.element.classList.toggle('answered-elsewhere', elsewhere);
    if (elsewhere) {
      this.element.hidden = false;
      this.element.append(el('h3', null, 'Answered elsewhere'), el('p', 'request-detail', 'This request was answered from another place.'));
      return;
    }
    this.element.hidden = key === null;
    if (key === null) return;
    this.agent = agent;
    this.request = request;
    if (!request) {
      delete this.element.dataset.tool;
      this.element.append(
        el('h3', null, needs.reason),
        el('p', 'request-detail', 'This cannot be answered from here: answer it in the agent\'s terminal.'),
      );
    } else {
      this.element.dataset.tool = request.tool_name;
      if (request.tool_name === 'AskUserQuestion') this.question(request);
      else if (request.tool_name === 'ExitPlanMode') this.plan(request, needs);
      else this.permission(request, needs);
    }
    if (terminal) this.terminalButton();
  }

  /** "Open the terminal": for what the card cannot answer, or answers differently than wished. */
  terminalButton() {
    const open = el('button', 'to-terminal', 'Open the terminal');
    open.type = 'button';
    open.title = 'Answer in the agent\'s own terminal';
    open.addEventListener('click', () => this.openTerminal());
    const row = el('div', 'row');
    row.append(open);
    this.element.append(row);
  }

  async send(decision, extra = {}) {
    this.answered = this.shown;
    for (const b of this.element.querySelectorAll('button')) b.disabled = true;
    try {
      await this.backend.command({ command: Command.ANSWER, session_id: this.agent, request_id: this.request.id, decision, ...extra });
    } catch (e) {
      // Answered in the terminal, or the agent moved on: nothing was decided twice.
      notice(e.message);
      this.element.hidden = true;
    }
  }

  permission(request, needs) {
    const card = this.element;
    card.append(el('h3', null, needs.reason ?? `Permission: ${request.tool_name}`), ...describe(request.tool_name, request.tool_input));
    const row = el('div', 'row');
    const allow = el('button', 'allow', 'Allow');
    allow.type = 'button';
    allow.addEventListener('click', () => this.send(Verdict.ALLOW));
    row.append(allow);
    for (const [i, s] of request.suggestions.entries()) {
      const always = el('button', 'allow-always', suggestionText(s));
      always.type = 'button';
      always.addEventListener('click', () => this.send(Verdict.ALLOW_ALWAYS, { suggestion: i }));
      row.append(always);
    }
    const reason = el('input', 'deny-reason');
    reason.placeholder = 'Why not (Claude reads it)';
    const deny = el('button', 'deny', 'Deny');
    deny.type = 'button';
    deny.addEventListener('click', () => this.send(Verdict.DENY, reason.value.trim() ? { message: reason.value.trim() } : {}));
    row.append(reason, deny);
    card.append(row);
  }

  question(request) {
    const card = this.element;
    const picks = [];
    for (const [i, q] of (request.tool_input.questions ?? []).entries()) {
      const box = el('fieldset', 'question');
      box.append(el('legend', null, q.header ? `${q.header}: ${q.question}` : q.question));
      for (const o of q.options ?? []) {
        const label = el('label', 'option');
        const input = el('input');
        input.type = q.multiSelect ? 'checkbox' : 'radio';
        input.name = `q${i}`;
        input.value = o.label;
        label.append(input, el('span', null, o.label));
        if (o.description) label.append(el('small', null, ` ${o.description}`));
        box.append(label);
      }
      const other = el('input', 'other');
      other.placeholder = 'Or your own answer';
      box.append(other);
      card.append(box);
      picks.push({ q, box, other });
    }
    const send = el('button', 'allow', 'Send the answers');
    send.type = 'button';
    send.addEventListener('click', () => {
      const answers = {};
      for (const { q, box, other } of picks) {
        const chosen = [...box.querySelectorAll('input:checked')].map((x) => x.value);
        if (other.value.trim()) chosen.push(other.value.trim());
        answers[q.question] = q.multiSelect ? chosen.join(', ') : (chosen[0] ?? '');
      }
      this.send(Verdict.ALLOW, { answers });
    });
    const row = el('div', 'row');
    row.append(send);
    card.append(row);
  }

  plan(request, needs) {
    const card = this.element;
    card.append(el('h3', null, needs.reason ?? 'Plan: approve it?'));
    const plan = request.tool_input.plan;
    if (plan) {
      const body = el('div', 'request-plan');
      renderInto(body, plan);
      card.append(body);
    } else {
      card.append(el('p', 'request-detail', 'The plan is in Claude\'s last message.'));
    }
    const row = el('div', 'row');
    const mode = el('select', 'plan-mode');
    for (const [value, text] of [[PermissionMode.DEFAULT, 'then ask before changes'], [PermissionMode.ACCEPT_EDITS, 'then edit without asking'], [PermissionMode.AUTO, 'then Claude Code\'s auto mode']]) {
      const option = el('option', null, text);
      option.value = value;
      mode.append(option);
    }
    const approve = el('button', 'allow', 'Approve');
    approve.type = 'button';
    approve.addEventListener('click', () => this.send(Verdict.ALLOW, { mode: mode.value }));
    const feedback = el('input', 'deny-reason');
    feedback.placeholder = 'What to change (Claude keeps planning)';
    const keep = el('button', 'deny', 'Keep planning');
    keep.type = 'button';
    keep.addEventListener('click', () => this.send(Verdict.DENY, { message: feedback.value.trim() || 'Keep planning.' }));
    row.append(approve, mode, feedback, keep);
    card.append(row);
  }
}
