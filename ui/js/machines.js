// Agents of other machines, in one sidebar with this machine's. The page addresses a remote agent as
// `name@machine` (an agent's name never holds `@`) and its messages as `id@machine` (ids are drawn by each
// hub, so two machines may draw the same), and this module is the only place that knows it: the backend
// it wraps sends a command for a remote agent as `on_machine` with that hub's own names, and rewrites what
// that hub says (relayed as `machine_event`) into the page's names before anything else sees it. So every
// panel (chat, requests, explanation, changes, usage) works for a remote agent as for a local one.
//
// A remote message's `seq` is its own hub's cursor, not this one's: the page's store leaves it out of the
// cursor it resumes this hub's feed from (`machine` marks it). The hub itself resumes each machine's feed.

import { address } from './dom.js';
import { Code, Command, UiEvent } from './names.js';

const AT = '@';

/** The other machines, as the hub last listed them or a link event named them. */
const known = new Set();

/** Events about a hub itself rather than its agents. */
const OWN = new Set([UiEvent.LIMITS, UiEvent.SEARCH_INDEX, UiEvent.SESSIONS_READ, UiEvent.MODEL_DOWNLOAD, UiEvent.VOICE_DOWNLOAD]);

/** The machine list commands answer with every machine: the names known from it. */
const LISTS = new Set([Command.MACHINES, Command.MACHINE_ADD, Command.MACHINE_REMOVE]);

/** `{name, machine}` of an address of the page (`machine` null for this machine's agents). */
export function split(id) {
  const at = id.lastIndexOf(AT);
  return at < 0 ? { name: id, machine: null } : { name: id.slice(0, at), machine: id.slice(at + 1) };
}

/** The page's address of `name` on `machine`. */
export function remoteId(name, machine) {
  return `${name}${AT}${machine}`;
}

/** What a remote hub said, in the page's names: agents and message ids of that machine. */
export function translate(event, machine) {
  const out = { ...event };
  const agent = (v) => (typeof v === 'string' && v !== 'user' ? remoteId(v, machine) : v);
  const message = (v) => (typeof v === 'string' ? remoteId(v, machine) : v);
  if ('session_id' in out) out.session_id = agent(out.session_id);
  if (out.session) out.session = translate(out.session, machine);
  if (Array.isArray(out.sessions)) out.sessions = out.sessions.map((s) => translate(s, machine));
  if (out.usage?.session_id) out.usage = { ...out.usage, session_id: agent(out.usage.session_id) };
  if (out.seq !== undefined && typeof out.id === 'string') {
    out.id = message(out.id);
    out.machine = machine;
  }
  if (out.parent_id) out.parent_id = message(out.parent_id);
  // A search's answer: the messages found there (its own Claude Code sessions stay its own).
  if (Array.isArray(out.results)) {
    out.results = out.results.map((r) => ({ ...r, agent: agent(r.agent), id: message(r.id), machine }));
    out.sessions = [];
  }
  if (Array.isArray(out.messages)) out.messages = out.messages.map((m) => translate(m, machine));
  return out;
}

/** A message id of the page, as its own hub knows it. */
function ownId(id) {
  return id ? split(id).name : id;
}

/** Thrown for a send to a machine that cannot be reached now: not refused, so the outbox keeps it queued
 * and sends it again (same client id) once the machine is back. */
export class MachineDown extends Error {}

/**
 * Wraps a backend: commands for remote agents go to their machine, the machine's events come back in the
 * page's names (to `onEvent`, which sees `machine_link` as it is and the rest as if local).
 */
export class MachinesBackend {
  constructor(backend) {
    this.backend = backend;
  }

  get where() {
    return this.backend.where;
  }

  /** A wrapped hook: events of other machines are translated before the page sees them. */
  static events(onEvent) {
    return (e) => {
      if (e.type === UiEvent.MACHINE_EVENT) {
        // What is about that hub itself (its account's limits, its index, its downloads) is not this
        // window's: the header shows this machine's.
        if (OWN.has(e.event.type)) return undefined;
        return onEvent(translate(e.event, e.machine));
      }
      if (e.type === UiEvent.MACHINE_LINK) known.add(e.machine);
      return onEvent(e);
    };
  }

  connect() {
    return this.backend.connect();
  }

  /**
   * A search of every agent: this machine's and each other machine's (those that answer), newest first.
   * A machine that cannot be reached is left out, and named in `unreached`.
   */
  async searchEverywhere(command) {
    const machines = [...known];
    const asked = [this.backend.command(command), ...machines.map((m) => this.command(command, m))];
    const [here, ...there] = await Promise.allSettled(asked);
    if (here.status === 'rejected') throw here.reason;
    const reply = { ...here.value, unreached: [] };
    there.forEach((r, i) => {
      if (r.status === 'fulfilled') {
        reply.results = reply.results.concat(r.value.results);
        reply.indexing += r.value.indexing;
      } else {
        reply.unreached.push(machines[i]);
      }
    });
    reply.results.sort((a, b) => b.at - a.at);
    reply.results = reply.results.slice(0, command.limit ?? reply.results.length);
    return reply;
  }

  /** Runs `command` on `on` (a machine's name), else on the machine of its agent; the answer in the page's
   * names. */
  async command(command, on = null) {
    if (command.command === Command.SEARCH && !on && !command.session_id) return this.searchEverywhere(command);
    const { name, machine: ofAgent } = split(command.session_id ?? '');
    const machine = on ?? ofAgent;
    if (!machine) {
      const answer = await this.backend.command(command);
      if (LISTS.has(command.command)) {
        known.clear();
        for (const m of answer) known.add(m.name);
      }
      return answer;
    }
    const forward = { ...command };
    if (command.session_id) forward.session_id = name;
    for (const key of ['up_to', 'before']) if (forward[key]) forward[key] = ownId(forward[key]);
    try {
      const answer = await this.backend.command({ command: Command.ON_MACHINE, machine, forward });
      return Array.isArray(answer) ? answer.map((a) => translate(a, machine)) : translate(answer ?? {}, machine);
    } catch (e) {
      if (e.code === Code.MACHINE_UNREACHABLE) throw new MachineDown(e.message);
      throw e;
    }
  }

  history(sessionId, { before, limit = 100 } = {}) {
    if (!split(sessionId).machine) return this.backend.history(sessionId, { before, limit });
    return this.command({ command: Command.HISTORY, session_id: sessionId, before, limit });
  }

  sendMessage(sessionId, text, clientId, attachments = []) {
    if (!split(sessionId).machine) return this.backend.sendMessage(sessionId, text, clientId, attachments);
    return this.command({ command: Command.USER_MESSAGE, session_id: sessionId, text, attachments, client_id: clientId });
  }

  /** Keeps `file` for `agent`: raw to this machine's hub; to another machine's as `attach`, its bytes in
   * base64 (the one command every hub takes). */
  async attachFile(agent, file, name) {
    if (!split(agent).machine) return this.backend.attachFile(agent, file, name);
    const url = await address(file);
    return this.command({ command: Command.ATTACH, session_id: agent, name, data: url.slice(url.indexOf(',') + 1) });
  }

  /** An attached image of `agent`'s conversation. Another machine keeps its own files: its bytes come
   * through the link, as the command's answer. */
  async attachmentUrl(agent, file) {
    const { machine } = split(agent);
    if (!machine) return this.backend.attachmentUrl(file);
    const { media_type: type, data } = await this.command({ command: Command.ATTACHMENT_IMAGE, id: file.id }, machine);
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    return this.backend.imageAddress(new Blob([bytes], { type }));
  }

  markRead(sessionId, upTo) {
    if (!split(sessionId).machine) return this.backend.markRead(sessionId, upTo);
    return this.command({ command: Command.MARK_READ, session_id: sessionId, up_to: upTo });
  }

  /** A remote agent's terminal: this machine's hub passes that hub's viewer on, frame for frame. */
  terminal(agent, size, on) {
    return this.backend.terminal(agent, size, on);
  }

  /** Speech becomes text on this machine's hub, which sends the words to the agent's machine: the
   * recording goes to it with the agent's page address (`name@machine`). */
  voice(agent, recording, blob) {
    return this.backend.voice(agent, recording, blob);
  }

  viewing(agent) {
    if (!split(agent ?? '').machine) return this.backend.viewing(agent);
    return undefined;
  }

  recorder() { return this.backend.recorder(); }

  speech(text, variant) { return this.backend.speech(text, variant); }

  imageAddress(blob) { return this.backend.imageAddress(blob); }

  /** Hands-free is heard by this machine's hub, among its own agents. */
  hear(utterance, shown, said) { return this.backend.hear(utterance, shown, said); }

  /** Hands-free listened to by this machine's app, where it listens itself (the desktop window). */
  get listen() { return this.backend.listen?.bind(this.backend); }

  dropConnection() { return this.backend.dropConnection(); }

  /** Starting at login: the app's own, where there is an app (the desktop window). */
  get autostart() { return this.backend.autostart?.bind(this.backend); }

  get setAutostart() { return this.backend.setAutostart?.bind(this.backend); }

  /** Updates: the app's own, where there is an app (the desktop window). */
  get updateCheck() { return this.backend.updateCheck?.bind(this.backend); }

  get updateInstall() { return this.backend.updateInstall?.bind(this.backend); }

  /** A paired phone's page (settings and pairing are the desktop's). */
  get isPhone() { return this.backend.isPhone === true; }

  /** A phone's pushes: its own hub's. */
  pushKey() { return this.backend.pushKey(); }

  subscribePush(subscription) { return this.backend.subscribePush(subscription); }

  /** Quitting: the app's own, where there is an app (the desktop window). */
  get quit() { return this.backend.quit?.bind(this.backend); }

  openLink(url) { return this.backend.openLink(url); }
}
