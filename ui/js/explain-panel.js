// The indicator, explained: a click on an agent's indicator (or its "needs you" line) opens this panel.
// It shows what the hub's `explain` command says (clawmux_core::explain): the state and since when, the
// event and source that set it, what will end it (for "needs you": the tool call it waits on and what
// closes it; for Starting: until when the hub waits), Claude Code's own view, and the latest decisions,
// ignored ones with their reasons. "Dismiss" ends a need a notice alone raised; "This looks wrong" makes a
// case file (`report`), shows it redacted before anything is written, and saves it.
//
// Every field has a `data-field` so a test can check each one. Everything the hub says goes in as text.

import { $, notice } from './dom.js';
import { Command, State } from './names.js';

const RIGHT = [
  ['', 'Not sure'],
  [State.STARTING, 'Starting'],
  [State.IDLE, 'Idle'],
  ['working', 'Working'],
  [State.COMPACTING, 'Compacting'],
  ['offline', 'Offline'],
  ['needs:permission', 'Needs you: a permission'],
  ['needs:answer', 'Needs you: an answer'],
  ['needs:plan_approval', 'Needs you: a plan approval'],
  ['needs:undelivered', 'Needs you: a message that did not get through'],
  ['not-needed', 'Nothing needed from me'],
];

const SPANS = [[5, '5 minutes'], [10, '10 minutes'], [60, 'an hour'], [24 * 60, 'a day']];

function el(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function field(name, tag = 'p', className = '') {
  const e = el(tag, className);
  e.dataset.field = name;
  return e;
}

/** A time as the user reads it: the clock time, and the date when not today. */
export function clock(ms) {
  const d = new Date(ms);
  const today = new Date().toDateString() === d.toDateString();
  const time = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return today ? time : `${d.toLocaleDateString()} ${time}`;
}

/** An event that set something, in words. */
function causeText(c) {
  const detail = c.detail ? ` (${c.detail})` : '';
  return `${c.words}${detail}, reported by ${c.source_words} at ${clock(c.at)}`;
}

/** What the agent needs, why, what closes it, and a Dismiss for a need a notice alone raised. */
function needsBox(needs) {
  const box = field('needs', 'section', 'explain-needs');
  box.append(el('h4', '', `Needs you: ${needs.reason}`));
  const raised = el('p', '', `Since ${clock(needs.since)}.`);
  if (needs.set_by) raised.textContent += ` Raised by: ${causeText(needs.set_by)}.`;
  raised.dataset.field = 'needs-set-by';
  box.append(raised);
  if (needs.tool_use_id || needs.tool_name) {
    const waits = field('waits-on');
    waits.textContent = `It waits on tool call ${needs.tool_use_id ?? '(no id)'} (${needs.tool_name ?? 'a tool'}).`;
    box.append(waits);
  }
  box.append(el('p', '', 'It closes with:'));
  const needEnds = field('needs-ends', 'ul');
  for (const line of needs.ends) needEnds.append(el('li', '', line));
  box.append(needEnds);
  if (needs.dismissable) {
    const b = el('button', '', 'Dismiss');
    b.dataset.action = 'dismiss';
    b.title = 'A notice alone raised this; no later hook would close it';
    box.append(b);
  }
  return box;
}

export class ExplainPanel {
  constructor(backend) {
    this.backend = backend;
    this.panel = $('explain');
    this.agent = null;
    this.until = null;
    this.panel.addEventListener('click', (e) => {
      const action = e.target.closest?.('[data-action]')?.dataset.action;
      if (action) this[action]?.();
    });
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && !this.panel.hidden) this.close();
    });
  }

  /** Opens the panel for `agent`. */
  async open(agent) {
    this.agent = agent;
    this.reportOpen = false;
    this.panel.hidden = false;
    await this.refresh();
  }

  close() {
    this.agent = null;
    this.panel.hidden = true;
    this.panel.replaceChildren();
  }

  /** The agent's status changed while the panel shows it: explain again (the report form stays). */
  /** An agent's state or needs changed: its explanation, if open, is read again. */
  rowChanged(change) {
    if (change.state !== undefined || change.needs !== undefined) this.changed(change.session_id);
  }

  changed(agent) {
    if (agent === this.agent && !this.reportOpen) this.refresh();
  }

  async refresh() {
    const agent = this.agent;
    let e;
    try {
      e = await this.backend.command({ command: Command.EXPLAIN, session_id: agent });
    } catch (err) {
      notice(`Cannot explain ${agent}'s indicator: ${err.message}`);
      return;
    }
    if (agent !== this.agent) return;
    this.render(agent, e);
  }

  render(agent, e) {
    const p = this.panel;
    p.replaceChildren();
    p.dataset.agent = agent;
    const head = el('header', 'explain-head');
    const title = field('state', 'h3');
    title.textContent = `${agent}: ${e.shown}`;
    head.append(title, el('button', 'link', 'Close'));
    head.lastChild.dataset.action = 'close';
    p.append(head);

    const since = field('since');
    since.textContent = `Since ${clock(e.since)} (${e.state})${e.activity ? `: ${e.activity}` : ''}`;
    const setBy = field('set-by');
    setBy.textContent = e.set_by ? `Set by: ${causeText(e.set_by)}.` : 'Set by: no recorded event; the agent was registered in this state.';
    p.append(since, setBy);

    p.append(el('h4', '', 'What will end it'));
    const ends = field('ends', 'ul');
    for (const line of e.ends) ends.append(el('li', '', line));
    p.append(ends);
    if (e.until) {
      const until = field('until');
      until.textContent = `The hub waits for its first clawmux wait until ${clock(e.until)}.`;
      p.append(until);
    }

    if (e.needs) p.append(needsBox(e.needs));

    const claude = field('claude', 'p', 'explain-claude');
    if (e.claude_now) claude.textContent = `Claude Code's own view: ${e.claude_now}.`;
    if (e.disagreement) {
      claude.textContent += ` Disagreement recorded at ${clock(e.disagreement.at)}: ${e.disagreement.detail ?? e.disagreement.words}.`;
      claude.classList.add('disagrees');
    }
    if (claude.textContent) p.append(claude);

    p.append(el('h4', '', 'Latest decisions'));
    const recent = field('recent', 'ol', 'explain-recent');
    for (const d of e.recent) {
      const li = el('li', `outcome-${d.outcome}`);
      li.append(el('span', 'when', clock(d.at)), el('span', 'what', `${d.words}${d.detail ? ` (${d.detail})` : ''}`),
        el('span', 'who', d.source_words), el('span', 'result', d.result));
      recent.append(li);
    }
    p.append(recent);

    const wrong = el('button', 'explain-wrong', 'This looks wrong');
    wrong.dataset.action = 'openReport';
    const doctor = el('button', 'explain-doctor link', 'Check this machine');
    doctor.type = 'button';
    doctor.dataset.doctor = '';
    p.append(wrong, doctor);
  }

  async dismiss() {
    try {
      await this.backend.command({ command: Command.DISMISS, session_id: this.agent });
      await this.refresh();
    } catch (err) {
      notice(`Cannot dismiss: ${err.message}`);
    }
  }

  /** "This looks wrong": the form, and a preview of the file before anything is written. */
  async openReport() {
    this.reportOpen = true;
    this.until = null;
    const form = el('form', 'explain-report');
    form.dataset.field = 'report';
    form.addEventListener('submit', (e) => e.preventDefault());
    const right = el('select');
    right.id = 'report-right';
    for (const [value, label] of RIGHT) {
      const o = el('option', '', label);
      o.value = value;
      right.append(o);
    }
    const span = el('select');
    span.id = 'report-span';
    for (const [minutes, label] of SPANS) {
      const o = el('option', '', `the last ${label}`);
      o.value = String(minutes);
      if (minutes === 10) o.selected = true;
      span.append(o);
    }
    const keep = el('input');
    keep.type = 'checkbox';
    keep.id = 'report-keep';
    const label = (text, control) => { const l = el('label', '', text); l.append(control); return l; };
    const keepLabel = el('label', 'check');
    keepLabel.append(keep, ' Keep message texts, tool inputs and paths');
    const summary = field('report-summary');
    const preview = field('report-preview', 'pre', 'report-preview');
    const save = el('button', '', 'Save the report');
    save.type = 'button';
    save.dataset.action = 'saveReport';
    const saved = field('report-saved');
    form.append(label('What was right? ', right), label('Covering ', span), keepLabel, summary, preview, save, saved);
    for (const c of [right, span, keep]) c.addEventListener('change', () => { this.until = null; this.preview(); });
    this.panel.querySelector('.explain-wrong')?.replaceWith(form);
    await this.preview();
  }

  request(save) {
    return {
      command: Command.REPORT,
      session_id: this.agent,
      since_ms: Number($('report-span').value) * 60_000,
      until: this.until ?? undefined,
      right: $('report-right').value || undefined,
      keep: $('report-keep').checked,
      save,
    };
  }

  async preview() {
    try {
      const r = await this.backend.command(this.request(false));
      this.until = r.until;
      this.panel.querySelector('[data-field=report-summary]').textContent = r.redacted
        ? `${r.events} events and ${r.transcript_lines} transcript lines; ${r.strings_redacted} texts redacted (messages, tool inputs, paths). This is the file as it will be saved:`
        : `${r.events} events and ${r.transcript_lines} transcript lines, with message texts, tool inputs and paths kept. This is the file as it will be saved:`;
      this.panel.querySelector('[data-field=report-preview]').textContent = r.text;
      this.text = r.text;
    } catch (err) {
      notice(`Cannot make the report: ${err.message}`);
    }
  }

  async saveReport() {
    try {
      const r = await this.backend.command(this.request(true));
      const saved = this.panel.querySelector('[data-field=report-saved]');
      saved.textContent = `Saved: ${r.path}. Replay it with: clawmux replay ${r.path}`;
      if (!window.__TAURI__) {
        const a = el('a', '', 'Download it');
        a.href = URL.createObjectURL(new Blob([r.text], { type: 'application/x-ndjson' }));
        a.download = r.path.split('/').pop();
        saved.append(' ', a);
      }
    } catch (err) {
      notice(`Cannot save the report: ${err.message}`);
    }
  }
}
