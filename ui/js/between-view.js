// Between agents: every thread two agents have, and the one picked with each message's delivery (queued,
// handed over, seen by the other's model, answered, or kept as an acknowledgement), so the user follows
// what passes between their agents and can step in: close a thread that loops, reopen it; and the leads
// (`leads-view.js`). The hub keeps the threads and proves each delivery (`threads` and `thread` commands);
// this file asks and shows, and asks again when a message passes or is seen while it is open.

import { $ } from './dom.js';
import { Command, Delivery, Kind, UiEvent } from './names.js';
import { LeadsPart } from './leads-view.js';
import { ToggledView } from './toggled-view.js';

/** Each delivery as the user reads it. */
export const DELIVERY_WORDS = Object.freeze({
  [Delivery.QUEUED]: 'queued',
  [Delivery.HANDED_OVER]: 'handed over',
  [Delivery.SEEN]: 'seen by its model',
  [Delivery.ANSWERED]: 'answered',
  [Delivery.NOT_A_TURN]: 'kept, not a turn',
});

/** The view, in `#between-panel`; `backend` runs commands. */
export class BetweenView extends ToggledView {
  constructor(backend) {
    super(backend, { panel: 'between-panel', open: 'between-open', close: 'between-close' });
    const again = () => this.changed();
    this.events = {
      [UiEvent.AGENT_MESSAGE]: again, [UiEvent.USER_ACK]: again, [UiEvent.SEEN]: again, [UiEvent.INBOX_UPDATE]: again, [UiEvent.USER_TEXT]: again,
    };
    this.picked = null;
    $('between-toggle').addEventListener('click', () => this.toggleClosed());
    $('between-reply').addEventListener('submit', (e) => {
      e.preventDefault();
      this.reply();
    });
    this.leads = new LeadsPart(backend, (line) => { $('between-state').textContent = line; });
  }

  async read() {
    let threads;
    try {
      threads = await this.backend.command({ command: Command.THREADS });
    } catch (e) {
      $('between-state').textContent = `Cannot read the threads: ${e.message}`;
      return;
    }
    if (!this.isOpen()) return;
    $('between-state').textContent = threads.length ? '' : 'No agent has written to another yet.';
    const key = (t) => `${t.pair.a}\u0000${t.pair.b}`;
    if (!this.picked || !threads.some((t) => key(t) === this.picked)) this.picked = threads[0] ? key(threads[0]) : null;
    $('between-threads').replaceChildren(...threads.map((t) => this.threadRow(t, key(t))));
    const picked = threads.find((t) => key(t) === this.picked);
    await this.showThread(picked);
    try {
      await this.leads.read();
    } catch (e) {
      $('between-state').textContent = `Cannot read the leads: ${e.message}`;
    }
  }

  threadRow(t, key) {
    const li = document.createElement('li');
    li.className = 'between-thread';
    li.dataset.pair = `${t.pair.a}-${t.pair.b}`;
    li.setAttribute('aria-selected', String(key === this.picked));
    const names = document.createElement('span');
    names.textContent = `${t.pair.a} ↔ ${t.pair.b}`;
    const count = document.createElement('span');
    count.className = 'count';
    count.textContent = t.closed ? `closed by ${t.closed.by}` : t.queued ? `${t.messages} · ${t.queued} queued` : String(t.messages);
    li.append(names, count);
    li.addEventListener('click', () => {
      this.picked = key;
      this.load();
    });
    return li;
  }

  async showThread(t) {
    this.current = t ?? null;
    $('between-toggle').hidden = !t;
    $('between-reply').hidden = !t;
    if (!t) {
      $('between-messages').replaceChildren();
      return;
    }
    const to = $('between-to');
    if ([...to.options].map((o) => o.value).join() !== [t.pair.a, t.pair.b].join()) {
      to.replaceChildren(new Option(t.pair.a, t.pair.a), new Option(t.pair.b, t.pair.b));
    }
    $('between-toggle').textContent = t.closed ? 'Reopen the thread' : 'Close the thread';
    const passed = await this.backend.command({ command: Command.THREAD, a: t.pair.a, b: t.pair.b });
    this.lastOfThread = [...passed].reverse().find((p) => p.message.kind === Kind.AGENT)?.message.id ?? null;
    $('between-messages').replaceChildren(...passed.map((p) => {
      const li = document.createElement('li');
      li.className = `between-message ${p.delivery}${p.message.kind === Kind.USER ? ' user' : ''}`;
      li.dataset.id = p.message.id;
      const who = document.createElement('span');
      who.className = 'who';
      who.textContent = `${p.message.sender} → ${p.message.agent}`;
      const text = document.createElement('span');
      text.className = 'text';
      text.textContent = p.message.text;
      const state = document.createElement('span');
      state.className = 'delivery';
      state.textContent = DELIVERY_WORDS[p.delivery] ?? p.delivery;
      li.append(who, text, state);
      return li;
    }));
  }

  /** The user's word in the thread, to the agent picked, answering the thread's last message. */
  async reply() {
    const text = $('between-text').value.trim();
    if (!this.current || !this.lastOfThread || !text) return;
    try {
      await this.backend.command({ command: Command.THREAD_REPLY, to: $('between-to').value, re: this.lastOfThread, text, client_id: crypto.randomUUID() });
      $('between-text').value = '';
    } catch (e) {
      $('between-state').textContent = `Cannot send: ${e.message}`;
    }
    await this.load();
  }

  async toggleClosed() {
    const t = this.current;
    if (!t) return;
    const command = t.closed ? Command.REOPEN_THREAD : Command.CLOSE_THREAD;
    try {
      await this.backend.command({ command, a: t.pair.a, b: t.pair.b });
    } catch (e) {
      $('between-state').textContent = `Cannot change the thread: ${e.message}`;
    }
    await this.load();
  }
}
