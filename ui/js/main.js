// Wires the page: the feed into the store and the views, the views' actions into the backend. Each part
// is a module of its own; this one holds the page's state (the agents, their open conversations, the one on
// screen) and routes the feed's events.
//
// The message pipeline (docs/ARCHITECTURE.md): push only (no polling of any kind), a client-side store
// keyed by message id, append-only elements, the latest page of a conversation on first view with
// "load older" for the rest, a reconnect that fetches only the gap, and sends queued while offline and
// replayed on reconnect with the same client id, so the hub stores each once.

import { agentHeader, wireContinue, wireModelChoice } from './agent-panel.js';
import { wireLoginStart, wirePreferences } from './preferences.js';
import { wireUpdates } from './updates.js';
import { DoctorView } from './doctor-view.js';
import { createBackend } from './backend.js';
import { pairIfAsked } from './pairing.js';
import { PhoneSettings } from './phone-settings.js';
import { PhonePush } from './phone-push.js';
import { Conversation } from './chat.js';
import { $, notice } from './dom.js';
import { ChangesPanel } from './changes-panel.js';
import { ExplainPanel } from './explain-panel.js';
import { ImportOffer } from './importer.js';
import { Command, Kind, UiEvent } from './names.js';
import { Outbox } from './outbox.js';
import { AttachTray } from './attachments.js';
import { SlashPalette } from './slash.js';
import { Panels } from './panels.js';
import { RequestCard } from './request-card.js';
import { Sidebar } from './sidebar.js';
import { SpawnForm } from './spawn.js';
import { TerminalPanel } from './terminal-panel.js';
import { TerminateAsk } from './terminate.js';
import { limitLines } from './usage.js';
import { UsageView } from './usage-view.js';
import { SearchPanel, resumeName } from './search-panel.js';
import { BetweenView } from './between-view.js';
import { BoardView } from './board-view.js';
import { MachinesBackend, translate } from './machines.js';
import { MessageStore } from './store.js';
import { VoicePanel } from './voice-panel.js';

const PAGE = 100;
const MESSAGE_EVENTS = new Set([UiEvent.USER_TEXT, UiEvent.ASSISTANT_TEXT, UiEvent.AGENT_MESSAGE, UiEvent.USER_ACK, UiEvent.ACTIVITY_TEXT, UiEvent.SYSTEM_TEXT]);

const store = new MessageStore();
const sessions = new Map();
const conversations = new Map();
let current = null;
let backend;
let sidebar;
let outbox;
let attachTray;
let phoneSettings;
let slashPalette;
let importOffer;
let voice;
let requests;
let terminal;
let explanation;
let changes;
let terminating;
let usageView;
let searchPanel;
let panels;

function onConnection(state) {
  const badge = $('connection');
  badge.className = `connection ${state}`;
  badge.textContent = state;
  badge.title = backend?.where ?? '';
  $('hub-address').textContent = backend?.where ?? '';
  outbox?.setOnline(state === 'online');
  // A phone reads, sends, answers and interrupts: the desktop's settings and machines are not its own.
  if (state === 'online' && !backend?.isPhone) {
    importOffer?.offer();
    loadLimits();
    loadMachines();
    phoneSettings?.load();
  }
}

let account = null;
// A reset passes and a projection ages with the clock, not with an event: the words are redone each minute.
setInterval(() => { if (account) showLimits(account); }, 60_000);

/** The account's limit windows in the window's header (none for an API key). */
function showLimits(latest) {
  account = latest;
  const list = $('limits');
  const lines = limitLines(account);
  list.replaceChildren(...lines.map((l) => {
    const li = document.createElement('li');
    li.textContent = l.text;
    li.dataset.window = l.window;
    li.dataset.level = l.level;
    return li;
  }));
  list.hidden = lines.length === 0;
}

/** Another machine's heading and its agents as last seen (they stay listed while it cannot be reached). */
function showMachine(m) {
  sidebar.machine(m);
  for (const s of m.sessions ?? []) upsertSession({ overlaps: [], ...translate(s, m.name) });
}

async function loadMachines() {
  try {
    for (const m of await backend.command({ command: Command.MACHINES })) showMachine(m);
  } catch (e) {
    notice(`Cannot list the other machines: ${e.message}`);
  }
}

async function addMachine(e) {
  e.preventDefault();
  notice('');
  try {
    const list = await backend.command({ command: Command.MACHINE_ADD, name: $('machine-name').value.trim(), url: $('machine-url').value.trim() });
    for (const m of list) showMachine(m);
    $('machine-form').hidden = true;
    $('machine-form').reset();
  } catch (err) {
    notice(`Cannot add that machine: ${err.message}`);
  }
}

async function loadLimits() {
  try {
    showLimits((await backend.command({ command: Command.USAGE, days: 1 })).account);
  } catch (e) {
    notice(`Cannot read the account's limits: ${e.message}`);
  }
}

/** The hub could not start: say why, instead of an empty window. */
function fatal(message) {
  $('sidebar').hidden = true;
  $('main').hidden = true;
  $('fatal-message').textContent = message;
  $('fatal').hidden = false;
}

/** The events that change one part of an agent's row: that part, from the event. */
const ROW_EVENTS = {
  [UiEvent.SESSION_PROBLEM]: (e) => ({ session_id: e.session_id, problem: e.problem }),
  [UiEvent.FORECAST]: (e) => ({ session_id: e.session_id, overlaps: e.overlaps }),
  [UiEvent.BACKGROUND]: (e) => ({ session_id: e.session_id, background: e.running }),
  [UiEvent.USAGE]: (e) => ({ session_id: e.usage.session_id, usage: e.usage }),
};

function onEvent(e) {
  if (MESSAGE_EVENTS.has(e.type)) return onMessage(e);
  panels.route(e);
  if (Object.hasOwn(ROW_EVENTS, e.type)) return upsertSession(ROW_EVENTS[e.type](e));
  switch (e.type) {
    case UiEvent.MACHINE_LINK:
      sidebar.machine({ name: e.machine, up: e.up, last_seen: e.last_seen, error: e.error });
      // Messages queued for its agents go now.
      if (e.up) outbox.flush();
      break;
    case UiEvent.SESSION_LIST:
      // A row says its conflict forecast only when there is one.
      for (const s of e.sessions) upsertSession({ overlaps: [], background: 0, ...s });
      if (!current && e.sessions.length) select(e.sessions[0].session_id, { open: false });
      welcome();
      break;
    case UiEvent.SESSION_SPAWNED:
      spawned(e.session);
      break;
    case UiEvent.SESSION_STATUS:
      upsertSession({ session_id: e.session_id, state: e.state, activity: e.activity, needs: e.needs ?? null });
      break;
    case UiEvent.RESET:
      // We may have missed messages (an unknown cursor, or the window fell behind): every open
      // conversation takes its latest page again; the store and the views ignore what they already have.
      for (const conv of conversations.values()) loadLatest(conv);
      break;
    case UiEvent.LIMITS:
      showLimits(e.account);
      break;
    case 'open_agent':
      if (sessions.has(e.session_id)) select(e.session_id);
      break;
    case 'hands_free':
      if (e.on !== voice.handsFree.on) (e.on ? voice.handsFree.start() : voice.handsFree.stop());
      break;
    case UiEvent.ERROR:
      notice(e.message);
      break;
    case 'fatal':
      fatal(e.message);
      break;
    default:
      break;
  }
}

/** The first screen: with no agent yet, what to do (start one, try the demo, install Claude Code, bring in
 * the sessions already running); gone with the first agent. */
async function welcome() {
  const none = sessions.size === 0;
  $('welcome').hidden = !none;
  if (!none) return;
  $('chat-title').textContent = 'Welcome';
  try {
    const caps = await backend.command({ command: Command.CAPABILITIES });
    $('welcome-install').hidden = Boolean(caps.claude);
    $('welcome-start').hidden = !caps.claude;
  } catch (e) {
    notice(e.message);
  }
}

async function startDemo() {
  let name = 'demo';
  for (let n = 2; sessions.has(name); n += 1) name = `demo-${n}`;
  notice('');
  try {
    const info = await backend.command({ command: Command.SPAWN, name, demo: true });
    spawned(info);
    select(info.session_id);
  } catch (e) {
    notice(`The demo agent could not start: ${e.message}`);
  }
}

/** A started agent's row, from the hub's event or the answer to the spawn: made when the process starts, so
 * a status the agent's first wait sent meanwhile may have come first, and is the newer: it is kept. */
function spawned(info) {
  const seen = sessions.get(info.session_id);
  upsertSession(seen?.state ? { ...info, state: seen.state, activity: seen.activity, needs: seen.needs } : info);
}

function upsertSession(s) {
  const before = sessions.get(s.session_id);
  const merged = { ...before, ...s };
  sessions.set(s.session_id, merged);
  if (!before) $('welcome').hidden = true;
  sidebar.upsert(s);
  panels.rowChanged(s, merged, before);
  if (s.session_id === current) panels.update(merged);
}

async function act(command) {
  if (!current) return;
  notice('');
  try {
    await backend.command({ command, session_id: current });
  } catch (e) {
    notice(`${command} failed: ${e.message}`);
  }
}

function onMessage(m) {
  const isNew = store.add(m);
  conversations.get(m.session_id)?.add(m);
  if (!isNew) return;
  panels.message(m);
  const fromAgent = m.kind === Kind.ASSISTANT || m.kind === Kind.AGENT;
  if (m.session_id === current) {
    if (fromAgent) backend.markRead(current, m.id).catch(() => {});
  } else if (fromAgent) {
    sidebar.setUnread(m.session_id, sidebar.unread(m.session_id) + 1);
  }
}

async function loadLatest(conv) {
  try {
    const page = await backend.history(conv.sessionId, { limit: PAGE });
    for (const m of page.messages) {
      store.add(m);
      conv.add(m);
    }
    conv.loaded = true;
    conv.older.hidden = page.messages.length < PAGE;
    const last = page.messages.at(-1);
    if (last && conv.sessionId === current) markAllRead(last.id);
  } catch (e) {
    notice(`Cannot load the history: ${e.message}`);
  }
}

async function loadOlder(conv) {
  if (!conv.oldest) return;
  try {
    const page = await backend.history(conv.sessionId, { before: conv.oldest.id, limit: PAGE });
    for (const m of page.messages) {
      store.add(m);
      conv.add(m);
    }
    conv.older.hidden = page.messages.length < PAGE;
  } catch (e) {
    notice(`Cannot load older messages: ${e.message}`);
  }
}

function markAllRead(lastId) {
  sidebar.setUnread(current, 0);
  backend.markRead(current, lastId).catch(() => {});
}

/** Tells the hub whether the user is at this window (focused and shown), so that nothing is pushed to
 * their phone meanwhile; said again every minute while true (it lapses by itself after 90 s). */
function tellPresence() {
  let last = null;
  const tell = (force = false) => {
    const present = document.hasFocus() && document.visibilityState === 'visible';
    if (present === last && !force) return;
    last = present;
    backend.command({ command: Command.PRESENT, present }).catch(() => { last = null; });
  };
  for (const e of ['focus', 'blur']) window.addEventListener(e, () => tell());
  document.addEventListener('visibilitychange', () => tell());
  setInterval(() => { if (last) tell(true); }, 60_000);
  tell();
}

/** Shows `agent`'s conversation; on a phone's screen it takes the screen (`open`), unless the page
 * picked it by itself, and "‹ Agents" goes back to the list. */
function select(agent, { open = true } = {}) {
  current = agent;
  sidebar.select(agent);
  if (open) document.body.classList.add('chatting');
  $('chat-title').textContent = agent;
  let conv = conversations.get(agent);
  if (!conv) {
    conv = new Conversation($('chats'), agent, loadOlder, (file) => backend.attachmentUrl(agent, file));
    conversations.set(agent, conv);
    conv.ready = loadLatest(conv);
  } else if (conv.newest) {
    // Its chat was open before: what arrived while it was off screen is read now.
    markAllRead(conv.newest.id);
  }
  for (const c of conversations.values()) c.element.hidden = c !== conv;
  backend.viewing(agent);
  panels.show(agent, sessions.get(agent));
  if (!$('input').disabled) $('input').focus();
}

/** Starts an agent that resumes a Claude Code session search found, in the folder it ran in. */
async function resumeSession(line) {
  notice('');
  try {
    const info = await backend.command({
      command: Command.SPAWN, name: resumeName(line), work_dir: line.folder, args: ['--resume', line.session_id],
    });
    spawned(info);
    select(info.session_id);
  } catch (e) {
    notice(`Cannot resume that session: ${e.message}`);
  }
}

/** The most pages of older messages loaded to reach a found message. */
const FIND_PAGES = 100;

/**
 * Shows a message search found, in its conversation: older pages are loaded (each added in place, nothing
 * shown is drawn again) until it is on screen, then it is scrolled to and marked.
 */
async function openFound(found) {
  if (!sessions.has(found.agent)) {
    notice(`${found.agent} is no longer in the sidebar.`);
    return;
  }
  select(found.agent);
  const conv = conversations.get(found.agent);
  await conv.ready;
  for (let n = 0; n < FIND_PAGES && !conv.elements.has(found.id); n += 1) {
    if (!conv.oldest || conv.oldest.seq <= found.seq || conv.older.hidden) break;
    await loadOlder(conv);
  }
  const element = conv.elements.get(found.id);
  if (!element) {
    notice('That message is not in this conversation any more.');
    return;
  }
  for (const old of document.querySelectorAll('.msg.found')) old.classList.remove('found');
  element.classList.add('found');
  element.scrollIntoView({ block: 'center' });
}

function send() {
  const input = $('input');
  const text = input.value;
  const agent = current;
  if (!agent || (!text.trim() && attachTray.size === 0)) return;
  input.value = '';
  notice('');
  // `/name ...` that the agent knows runs in its Claude Code; anything else is a message.
  if (text.trim().startsWith('/') && attachTray.size === 0) {
    slashPalette.run(agent, text).then((ran) => ran || outbox.send(agent, text));
    return;
  }
  outbox.send(agent, text.trim() ? text : '', attachTray.takeAll());
}

function wireChat() {
  // A link in a message opens outside: a new tab in a browser, the user's browser from the window.
  $('chats').addEventListener('click', (e) => {
    const link = e.target.closest?.('a[href]');
    if (!link) return;
    e.preventDefault();
    Promise.resolve(backend.openLink(link.href)).catch((err) => notice(err.message));
  });
  $('act-interrupt').addEventListener('click', () => act(Command.INTERRUPT));
  $('act-restart').addEventListener('click', () => act(Command.RESTART));
  wireModelChoice(backend, () => current, notice);
  wireContinue(backend, () => current, notice);
  if (!backend.isPhone) {
    wirePreferences(backend);
    wireLoginStart(backend);
    wireUpdates(backend);
    new DoctorView(backend);
  }
  $('act-terminate').addEventListener('click', () => {
    notice('');
    if (current) terminating.terminate(sessions.get(current) ?? { session_id: current });
  });
  $('composer').addEventListener('submit', (e) => {
    e.preventDefault();
    send();
  });
  $('input').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  });
}

function start() {
  sidebar = new Sidebar($('agents'), select, (agent) => explanation.open(agent));
  try {
    backend = new MachinesBackend(createBackend({ onEvent: MachinesBackend.events(onEvent), onConnection, cursor: () => store.cursor() }));
  } catch (e) {
    notice(e.message);
    return;
  }
  document.body.classList.toggle('phone', backend.isPhone);
  phoneSettings = new PhoneSettings(backend, { notice });
  new PhonePush(backend, { notice, open: (agent) => onEvent({ type: 'open_agent', session_id: agent }) });
  outbox = new Outbox(backend, (agent) => conversations.get(agent));
  attachTray = new AttachTray(backend, { current: () => current, notice });
  slashPalette = new SlashPalette(backend, { current: () => current, notice });
  importOffer = new ImportOffer(backend);
  new SpawnForm(backend, (info) => {
    spawned(info);
    select(info.session_id);
  }, () => [...sidebar.machines.keys()].sort());
  voice = new VoicePanel(backend, {
    current: () => current, session: (agent) => sessions.get(agent), agents: () => [...sessions.keys()], select,
  });
  terminal = new TerminalPanel(backend);
  explanation = new ExplainPanel(backend);
  terminating = new TerminateAsk(backend, notice);
  usageView = new UsageView(backend);
  searchPanel = new SearchPanel(backend, {
    agents: () => [...sessions.keys()].sort(),
    open: openFound,
    resume: resumeSession,
    board: () => boardView.open(),
  });
  changes = new ChangesPanel(backend, { send: (agent, text) => outbox.send(agent, text) });
  requests = new RequestCard(backend, { openTerminal: () => terminal.setOpen(true) });
  // Each panel's part in the page, in the order they are drawn.
  const betweenView = new BetweenView(backend);
  const boardView = new BoardView(backend, { agents: () => [...sessions.keys()].sort() });
  panels = new Panels([agentHeader, requests, terminal, changes, voice, explanation, usageView, searchPanel, betweenView, boardView]);
  wireChat();
  $('welcome-spawn').addEventListener('click', () => $('new-agent').click());
  $('back-to-agents').addEventListener('click', () => document.body.classList.remove('chatting'));
  if (!backend.isPhone) tellPresence();
  // In the window, closing only puts the app away: Ctrl+Q ends it.
  document.addEventListener('keydown', (e) => {
    if (e.ctrlKey && !e.shiftKey && !e.altKey && e.code === 'KeyQ' && backend.quit) {
      e.preventDefault();
      backend.quit();
    }
  });
  $('welcome-try-demo').addEventListener('click', startDemo);
  $('new-machine').addEventListener('click', () => { $('machine-form').hidden = !$('machine-form').hidden; });
  $('machine-cancel').addEventListener('click', () => { $('machine-form').hidden = true; });
  $('machine-form').addEventListener('submit', addMachine);
  Promise.resolve(backend.connect()).catch((e) => fatal(e.message ?? String(e)));
  // For tests and debugging: the live objects, read-only in spirit.
  window.clawmux = { backend, store, conversations, terminal, explanation, changes, usageView, searchPanel, betweenView, boardView, speaker: voice.speaker, listener: voice.listener, handsFree: voice.handsFree };
}

// The installed app (a phone's home screen) opens with the page's own files even when the hub is away.
if (!window.__TAURI__ && 'serviceWorker' in navigator) {
  navigator.serviceWorker.register('sw.js').catch(() => {});
}
// A phone opening the desktop's pairing link is paired first.
pairIfAsked().then(start, (e) => notice(e.message));
