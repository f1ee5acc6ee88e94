// Sends typed messages. Each is shown at once as queued, kept in order while the hub (or, for an agent of
// another machine, that machine: `MachineDown`) is unreachable, and sent again with the same client id when
// it is back, so the hub stores it once. Its files (`Outgoing`) go with it: each kept by the hub before the
// message is sent, once, however often the send is tried. A message the hub refuses stays on screen,
// marked, with the hub's reason.

import { HubError } from './hub-error.js';
import { notice } from './dom.js';

export class Outbox {
  /** `conversation(agent)` is the agent's open Conversation, if any. */
  constructor(backend, conversation) {
    this.backend = backend;
    this.conversation = conversation;
    /** Not yet stored by the hub, in order: {sessionId, text, files, clientId, element}. */
    this.items = [];
    this.online = false;
  }

  /** Queues `text` (and `files`, Outgoing) for `agent` and sends it if nothing is ahead of it. */
  send(agent, text, files = []) {
    const clientId = crypto.randomUUID();
    const element = this.conversation(agent).addQueued(clientId, text, files.map((f) => f.drawn(this.backend)));
    const item = { sessionId: agent, text, files, clientId, element };
    this.items.push(item);
    if (this.online && this.items.length === 1) this.deliver(item);
  }

  /** The feed is up or down; up, the queue is sent in order. */
  setOnline(online) {
    this.online = online;
    if (online) this.flush();
  }

  async flush() {
    for (const item of [...this.items]) {
      if (!(await this.deliver(item))) return;
    }
  }

  /** True when the item is settled (stored or refused); false when the hub could not be reached. */
  async deliver(item) {
    try {
      const attachments = await Promise.all(item.files.map((f) => f.keep(this.backend, item.sessionId)));
      const stored = await this.backend.sendMessage(item.sessionId, item.text, item.clientId, attachments);
      this.conversation(item.sessionId)?.settleQueued(item.element, stored);
      this.items.splice(this.items.indexOf(item), 1);
      return true;
    } catch (e) {
      if (e instanceof HubError) {
        // Refused, not lost: say why and keep the text on screen.
        this.items.splice(this.items.indexOf(item), 1);
        item.element.classList.add('failed');
        notice(`Not sent: ${e.message}`);
        return true;
      }
      return false; // unreachable (the hub, or the agent's machine): stays queued until it is back
    }
  }
}
