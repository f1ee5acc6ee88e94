// Claude Code's slash commands from the chat's text box: typing `/` lists the commands the agent knows
// (Claude Code's own, and the user's custom ones), a click picks one, and Enter on `/name args` runs it in
// the agent's Claude Code instead of sending it as a message. A line that starts with `/` but names no
// command the agent knows (`/etc/hosts is wrong`) is an ordinary message. The hub refuses, with the
// reason, a command while the agent works or shows a dialog: nothing is typed into its terminal then.

import { Command } from './names.js';
import { $ } from './dom.js';

export class SlashPalette {
  /** `current()` is the agent on screen; `notice(text)` says what came of a command. */
  constructor(backend, { current, notice }) {
    this.backend = backend;
    this.current = current;
    this.notice = notice;
    /** The commands each agent knows, fetched once per agent and page. */
    this.known = new Map();
    this.list = $('slash-list');
    $('input').addEventListener('input', () => this.show());
    $('input').addEventListener('blur', () => setTimeout(() => { this.list.hidden = true; }, 150));
  }

  /** The commands `agent` knows (`[{name, description, source}]`). */
  commands(agent) {
    if (!this.known.has(agent)) {
      const asked = this.backend.command({ command: Command.SLASH_COMMANDS, session_id: agent });
      asked.catch(() => this.known.delete(agent));
      this.known.set(agent, asked);
    }
    return this.known.get(agent);
  }

  /** Lists the commands matching what is typed, while it is a `/` and a name. */
  async show() {
    const agent = this.current();
    const text = $('input').value;
    const typed = /^\/([\w:-]*)$/.exec(text)?.[1];
    if (!agent || typed === undefined) {
      this.list.hidden = true;
      return;
    }
    let commands = [];
    try {
      commands = await this.commands(agent);
    } catch {
      return;
    }
    const matching = commands.filter((c) => c.name.startsWith(typed)).slice(0, 12);
    this.list.replaceChildren(...matching.map((c) => {
      const item = document.createElement('li');
      item.dataset.name = c.name;
      const name = document.createElement('strong');
      name.textContent = `/${c.name}`;
      const what = document.createElement('span');
      what.textContent = c.description;
      item.append(name, ' ', what);
      item.addEventListener('mousedown', (e) => {
        e.preventDefault();
        $('input').value = `/${c.name} `;
        this.list.hidden = true;
        $('input').focus();
      });
      return item;
    }));
    this.list.hidden = matching.length === 0;
  }

  /**
   * Runs `text` in `agent` if it names a command the agent knows; resolves true then (done or refused,
   * with the reason said), false when it is an ordinary message to send.
   */
  async run(agent, text) {
    const name = /^\/([\w:-]+)/.exec(text.trim())?.[1];
    if (!name) return false;
    let commands;
    try {
      commands = await this.commands(agent);
    } catch {
      return false;
    }
    if (!commands.some((c) => c.name === name)) return false;
    this.list.hidden = true;
    try {
      await this.backend.command({ command: Command.SLASH, session_id: agent, text: text.trim() });
      this.notice('');
    } catch (e) {
      this.notice(`Not run: ${e.message}`);
      if (!$('input').value) $('input').value = text;
    }
    return true;
  }
}
