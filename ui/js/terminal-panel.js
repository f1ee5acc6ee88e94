// The agent's terminal beside its chat: xterm.js drawing the agent's tmux pane, live, through the hub
// (`backend.terminal()`: the hub's WebSocket in a browser, an IPC channel in the window). What a user types
// into it goes to the agent; copy is Ctrl+Shift+C (or Ctrl+C while text is selected), paste Ctrl+Shift+V,
// as in a terminal.
//
// One viewer at a time, for the agent on screen: switching agents or hiding the panel detaches it (the
// agent never notices). An agent that ends leaves its last screen here with a line saying so, and the panel
// attaches again by itself when the agent starts again. Whether the panel is shown, and its width, are
// remembered for the next visit.

import { FitAddon } from '../vendor/addon-fit.mjs';
import { Terminal } from '../vendor/xterm.mjs';
import { $ } from './dom.js';
import { Code, State, TerminalNotice } from './names.js';

const PREFS = 'clawmux.terminal';
/** Lines kept above the screen: enough to scroll back through a tool's output, bounded in memory (the hub
 * sends as many lines of the pane's history to a new viewer). */
const SCROLLBACK = 5000;
const MIN_WIDTH = 240;
const RETRY_MS = 1000;

function loadPrefs() {
  try {
    const p = JSON.parse(localStorage.getItem(PREFS) ?? '{}');
    return { open: p.open === true, width: Number.isFinite(p.width) ? p.width : null };
  } catch {
    return { open: false, width: null };
  }
}

export class TerminalPanel {
  /** `backend` opens the viewers. */
  constructor(backend) {
    this.backend = backend;
    this.prefs = loadPrefs();
    this.agent = null;
    this.viewer = null;
    this.ticket = null;
    this.attempt = 0;
    // Why the panel has no viewer: 'ended', 'unavailable', 'not_running', 'lost' or null.
    this.detached = null;
    this.panel = $('terminal-panel');
    this.status = $('terminal-status');
    this.toggleButton = $('act-terminal');
    this.toggleButton.addEventListener('click', () => this.setOpen(!this.prefs.open));
    this.wireSplitter($('terminal-splitter'));
    this.term = null;
    this.fit = null;
  }

  /** The terminal itself, made when the panel is first shown (it measures its cells then). */
  ensureTerminal() {
    if (this.term) return;
    this.term = new Terminal({
      scrollback: SCROLLBACK,
      cursorBlink: true,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace',
      fontSize: 13,
      theme: { background: '#0b0d11', foreground: '#e6e8eb' },
    });
    this.fit = new FitAddon();
    this.term.loadAddon(this.fit);
    this.term.open($('terminal'));
    this.term.onData((data) => this.viewer?.write(data));
    this.term.onBinary((data) => this.viewer?.write(data));
    this.term.onResize(({ cols, rows }) => this.viewer?.resize(cols, rows));
    this.term.attachCustomKeyEventHandler((e) => this.key(e));
    new ResizeObserver(() => this.refit()).observe($('terminal'));
  }

  /** Copy and paste as a terminal does them; every other key goes to the agent. */
  key(e) {
    if (e.type !== 'keydown') return true;
    const ctrl = e.ctrlKey && !e.altKey && !e.metaKey;
    const k = e.key.toLowerCase();
    if (ctrl && k === 'c' && (e.shiftKey || this.term.hasSelection())) {
      e.preventDefault();
      const text = this.term.getSelection();
      if (text) navigator.clipboard?.writeText(text).catch(() => {});
      if (!e.shiftKey) this.term.clearSelection();
      return false;
    }
    // The browser's own paste then reaches the terminal (as a bracketed paste when the program asks).
    if (ctrl && e.shiftKey && k === 'v') return false;
    return true;
  }

  refit() {
    if (this.panel.hidden || !this.fit) return;
    try {
      this.fit.fit();
    } catch {
      // Not laid out yet: the next resize fits it.
    }
  }

  /** Shows or hides the panel (remembered); hiding it detaches its viewer. */
  setOpen(open) {
    this.prefs.open = open;
    this.savePrefs();
    this.layout();
    if (open) {
      this.attach();
      this.term.focus();
    } else {
      this.detach(null);
    }
  }

  savePrefs() {
    localStorage.setItem(PREFS, JSON.stringify(this.prefs));
  }

  layout() {
    const open = this.prefs.open && this.agent !== null;
    this.panel.hidden = !open;
    $('terminal-splitter').hidden = !open;
    this.toggleButton.hidden = this.agent === null;
    this.toggleButton.setAttribute('aria-pressed', String(open));
    if (this.prefs.width) this.panel.style.width = `${this.prefs.width}px`;
    if (open) {
      this.ensureTerminal();
      requestAnimationFrame(() => this.refit());
    }
  }

  /** The agent on screen changed: its terminal replaces the last one's. */
  show(agent) {
    if (agent === this.agent) return;
    this.detach(null);
    this.agent = agent;
    this.term?.reset();
    this.layout();
    if (this.prefs.open) this.attach();
  }

  /** The agent's row changed: an agent that runs again is attached again. */
  update(row) {
    if (row.session_id !== this.agent || !this.prefs.open || this.ticket) return;
    const runs = row.state !== undefined && row.state !== State.DEAD;
    if (runs && (this.detached === 'ended' || this.detached === 'not_running')) {
      // tmux clears the screen it attaches to: the last one goes up into the scrollback first.
      if (this.detached === 'ended') this.term?.write(`\r\n\x1b[2m── started again ──\x1b[0m${'\r\n'.repeat(this.term.rows)}`);
      this.attach();
    }
  }

  say(text, kind = '') {
    this.status.textContent = text;
    this.status.className = `terminal-status ${kind}`;
    this.status.hidden = !text;
  }

  async attach() {
    if (this.ticket || !this.agent || !this.prefs.open) return;
    this.ensureTerminal();
    this.refit();
    // This attachment's own mark: whatever arrives for an older one (a late byte, a late notice) is dropped.
    const ticket = {};
    this.ticket = ticket;
    // The hub sends the pane's history again: after a lost connection the old copy goes.
    if (this.detached === 'lost') this.term.reset();
    this.detached = null;
    this.say('Connecting…');
    const viewer = await this.backend.terminal(this.agent, { cols: this.term.cols, rows: this.term.rows }, {
      data: (bytes) => {
        if (this.ticket === ticket) this.term.write(bytes);
      },
      notice: (n) => {
        if (this.ticket === ticket) this.notice(n);
      },
    });
    if (this.ticket !== ticket) {
      viewer.close();
      return;
    }
    this.viewer = viewer;
  }

  notice(n) {
    switch (n.type) {
      case TerminalNotice.ATTACHED:
        this.attempt = 0;
        this.say('');
        break;
      case TerminalNotice.UNAVAILABLE:
        this.detach(n.code === Code.NOT_RUNNING ? 'not_running' : 'unavailable');
        this.say(n.message, 'unavailable');
        break;
      case TerminalNotice.ENDED:
        this.detach('ended');
        // tmux cleared the screen as the session closed: draw again the one the agent left.
        if (n.screen) this.term.write(`\x1b[0m\x1b[H\x1b[2J${n.screen.replace(/\n+$/, '').replace(/\n/g, '\r\n')}`);
        this.term.write('\r\n\x1b[2m── ended ──\x1b[0m\r\n');
        this.say(n.message, 'ended');
        break;
      case TerminalNotice.REFUSED:
        this.say(n.message, 'unavailable');
        break;
      case 'lost': {
        // The connection broke (the hub restarted, the network): attach again, from the current screen.
        this.detach('lost');
        this.say('Connection to the terminal lost; connecting again…', 'unavailable');
        const delay = RETRY_MS * Math.min(2 ** this.attempt++, 8);
        setTimeout(() => {
          if (this.detached === 'lost') this.attach();
        }, delay);
        break;
      }
      default:
        break;
    }
  }

  /** Ends the viewer (only this one: the agent goes on), noting why. */
  detach(why) {
    const viewer = this.viewer;
    this.viewer = null;
    this.ticket = null;
    this.detached = why;
    viewer?.close();
    if (why === null) this.say('');
  }

  /** Dragging the bar between the chat and the terminal sets the panel's width (remembered). */
  wireSplitter(bar) {
    bar.addEventListener('pointerdown', (down) => {
      down.preventDefault();
      bar.setPointerCapture(down.pointerId);
      const right = this.panel.getBoundingClientRect().right;
      const move = (e) => {
        const max = Math.max(MIN_WIDTH, $('panes').clientWidth - MIN_WIDTH);
        const width = Math.round(Math.min(max, Math.max(MIN_WIDTH, right - e.clientX)));
        this.panel.style.width = `${width}px`;
        this.prefs.width = width;
      };
      const up = () => {
        bar.removeEventListener('pointermove', move);
        bar.removeEventListener('pointerup', up);
        this.savePrefs();
        this.refit();
      };
      bar.addEventListener('pointermove', move);
      bar.addEventListener('pointerup', up);
    });
  }
}
