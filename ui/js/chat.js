// The conversations. Append-only: every message element is created once and never re-created or
// re-rendered; a conversation's container is kept when another is shown. Messages are placed by seq, so a
// live message that arrives before the first history page still ends up after it. A reply is a message of
// its own, in its speaker's place (an agent's answer is never drawn inside the user's bubble), tied to
// what it answers by a quote of it that leads back to it; a thumbs-up (ack) is a mark on the message it
// acknowledges.

import { filesRow } from './attachments.js';
import { renderInto } from './markdown.js';
import { AttachmentKind, Kind } from './names.js';

const TIME = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export class Conversation {
  /** `fileUrl(file)` resolves to an address of an attached image of this conversation. */
  constructor(root, sessionId, loadOlder, fileUrl) {
    this.sessionId = sessionId;
    this.fileUrl = fileUrl;
    this.element = document.createElement('div');
    this.element.className = 'chat';
    this.element.dataset.session = sessionId;
    this.older = document.createElement('button');
    this.older.className = 'load-older';
    this.older.textContent = 'Load older messages';
    this.older.hidden = true;
    this.older.addEventListener('click', () => loadOlder(this));
    this.list = document.createElement('div');
    this.list.className = 'messages';
    this.element.append(this.older, this.list);
    root.append(this.element);
    /** @type {Map<string, HTMLElement>} */
    this.elements = new Map();
    this.loaded = false;
    this.oldest = null;
    this.newest = null;
  }

  /** Shows a message; does nothing if it is already on screen. Returns its element. */
  add(m) {
    const existing = this.elements.get(m.id);
    if (existing) return existing;
    if (!this.oldest || m.seq < this.oldest.seq) this.oldest = m;
    if (!this.newest || m.seq > this.newest.seq) this.newest = m;
    const parent = m.parent_id ? this.elements.get(m.parent_id) : null;
    if (m.kind === Kind.ACK && parent) {
      const mark = document.createElement('span');
      mark.className = 'ack';
      mark.dataset.id = m.id;
      mark.title = `${m.sender} acknowledged`;
      mark.textContent = '👍';
      parent.querySelector(':scope > .acks').append(mark);
      this.elements.set(m.id, mark);
      return mark;
    }
    const element = this.render(m);
    if (m.parent_id) element.prepend(this.replyTo(m.parent_id, parent));
    this.place(this.list, element, m.seq);
    this.elements.set(m.id, element);
    return element;
  }

  /** The line that ties a reply to what it answers: a quote of it (when it is on screen), a click away. */
  replyTo(parentId, parent) {
    const line = document.createElement('button');
    line.type = 'button';
    line.className = 'reply-to';
    line.dataset.replyTo = parentId;
    const quoted = parent?.querySelector(':scope > .body')?.textContent.trim().replace(/\s+/g, ' ') ?? '';
    const who = parent?.classList.contains(`kind-${Kind.USER}`) ? 'you' : 'a message';
    line.textContent = quoted
      ? `↪ in reply to ${who}: “${quoted.length > 80 ? `${quoted.slice(0, 80)}…` : quoted}”`
      : '↪ in reply to an earlier message';
    line.title = 'Show the message this answers';
    line.addEventListener('click', () => {
      const target = this.elements.get(parentId);
      if (!target) return;
      target.scrollIntoView({ block: 'center', behavior: 'smooth' });
      target.classList.remove('flash');
      void target.offsetWidth;
      target.classList.add('flash');
    });
    return line;
  }

  render(m) {
    const element = document.createElement('article');
    element.className = `msg kind-${m.kind}`;
    element.dataset.id = m.id;
    element.dataset.seq = String(m.seq);
    element.seq = m.seq;
    const meta = document.createElement('div');
    meta.className = 'meta';
    // An agent's own message to an agent of another machine, kept in its conversation, names both.
    const away = m.kind === Kind.AGENT && m.sender === m.session_id && m.recipient && m.recipient !== 'user';
    const who = m.kind === Kind.USER ? (m.voice ? 'You (voice)' : 'You') : away ? `${m.sender} → ${m.recipient}` : m.sender;
    meta.textContent = `${who} · ${TIME.format(m.ts)}`;
    const body = document.createElement('div');
    body.className = 'body';
    if (m.kind === Kind.ACK) body.textContent = '👍';
    else renderInto(body, m.text);
    const acks = document.createElement('div');
    acks.className = 'acks';
    element.append(meta, body);
    if (m.attachments?.length) {
      // A file queued here is shown from the page's own copy; a stored one is fetched once, when drawn.
      const url = (f) => f.local ?? (f.kind === AttachmentKind.IMAGE ? this.fileUrl(f) : null);
      element.append(filesRow(m.attachments, url));
    }
    element.append(acks);
    if (m.parent_id) element.classList.add('is-reply');
    return element;
  }

  /** Inserts by seq: at the end for live messages, at the start for older pages, else by binary search,
   * so loading a long history stays O(n log n). */
  place(container, element, seq) {
    const children = container.children;
    const n = children.length;
    if (n === 0 || children[n - 1].seq < seq) {
      container.append(element);
      return;
    }
    if (children[0].seq > seq) {
      container.prepend(element);
      return;
    }
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (children[mid].seq < seq) lo = mid + 1;
      else hi = mid;
    }
    container.insertBefore(element, children[lo]);
  }

  /** A message sent while offline, shown as queued until the hub has it, with its files (as
   * `Outgoing.drawn` gives them). */
  addQueued(clientId, text, attachments = []) {
    const element = this.render({ id: '', seq: Number.MAX_SAFE_INTEGER, kind: Kind.USER, sender: 'user', text, attachments, ts: Date.now() });
    element.classList.add('queued');
    element.dataset.clientId = clientId;
    this.list.append(element);
    return element;
  }

  /** The hub stored a queued message: the same element becomes that message (or goes, if the feed already
   * brought it). */
  settleQueued(element, m) {
    if (this.elements.has(m.id)) {
      element.remove();
      return;
    }
    element.classList.remove('queued');
    element.dataset.id = m.id;
    element.dataset.seq = String(m.seq);
    element.seq = m.seq;
    delete element.dataset.clientId;
    this.elements.set(m.id, element);
  }
}
