// Wires the page: the feed into the store and the views, the composer into the backend.
//
// The message pipeline (docs/ARCHITECTURE.md): push only (no polling of any kind), a client-side store
// keyed by message id, append-only elements, the latest page of a conversation on first view with
// "load older" for the rest, a reconnect that fetches only the gap, and sends queued while offline and
// replayed on reconnect with the same client id, so the hub stores each once.

import { createBackend, HubError } from './backend.js';
import { Conversation } from './chat.js';
import { Sidebar } from './sidebar.js';
import { Kind, Launch, State } from './names.js';
import { MessageStore } from './store.js';
import { Listener, Speaker } from './voice.js';

const PAGE = 100;
const MESSAGE_EVENTS = new Set(['user_text', 'assistant_text', 'agent_message', 'user_ack', 'activity_text', 'system_text']);

const $ = (id) => document.getElementById(id);
const store = new MessageStore();
const sessions = new Map();
const conversations = new Map();
/** Sends not yet stored by the hub, in order: {sessionId, text, clientId, element}. */
const outbox = [];
let current = null;
let online = false;
let backend;
let sidebar;

function notice(text) {
  $('notice').textContent = text;
  $('notice').hidden = !text;
}

/** An earlier ClawMux's conversations are in the data folder and not imported yet: offer them, once per
 * page. The hub imports each once, however often this runs. */
let importOffered = false;
async function offerImport() {
  if (importOffered) return;
  importOffered = true;
  const caps = await backend.command({ command: 'capabilities' }).catch(() => null);
  if (!caps?.to_import) return;
  $('import-text').textContent =
    `Found ${caps.to_import} agent conversation(s) of an earlier ClawMux in the data folder. Import them?`;
  $('import-offer').hidden = false;
}

async function runImport() {
  $('import-go').disabled = true;
  try {
    const report = await backend.command({ command: 'import' });
    const failed = report.filter((r) => r.error);
    const imported = report.length - failed.length;
    $('import-text').textContent = [
      `Imported ${imported} agent conversation(s).`,
      ...failed.map((r) => `${r.agent}: not imported: ${r.error}`),
    ].join(' ');
    $('import-go').hidden = true;
    $('import-later').textContent = 'Close';
  } catch (e) {
    $('import-text').textContent = `Not imported: ${e.message}`;
  } finally {
    $('import-go').disabled = false;
  }
}

function onConnection(state) {
  online = state === 'online';
  const badge = $('connection');
  badge.className = `connection ${state}`;
  badge.textContent = state;
  badge.title = backend?.where ?? '';
  $('hub-address').textContent = backend?.where ?? '';
  if (online) {
    flushOutbox();
    offerImport();
  }
}

/** The hub could not start: say why, instead of an empty window. */
function fatal(message) {
  $('sidebar').hidden = true;
  $('main').hidden = true;
  $('fatal-message').textContent = message;
  $('fatal').hidden = false;
}

function onEvent(e) {
  if (MESSAGE_EVENTS.has(e.type)) return onMessage(e);
  switch (e.type) {
    case 'session_list':
      for (const s of e.sessions) upsertSession(s);
      if (!current && e.sessions.length) select(e.sessions[0].session_id);
      break;
    case 'session_spawned':
      upsertSession(e.session);
      break;
    case 'session_status':
      upsertSession({ session_id: e.session_id, state: e.state, activity: e.activity, needs: e.needs ?? null });
      break;
    case 'session_problem':
      upsertSession({ session_id: e.session_id, problem: e.problem });
      break;
    case 'reset':
      // We may have missed messages (an unknown cursor, or the window fell behind): every open
      // conversation takes its latest page again; the store and the views ignore what they already have.
      for (const conv of conversations.values()) loadLatest(conv);
      break;
    case 'error':
      notice(e.message);
      break;
    case 'fatal':
      fatal(e.message);
      break;
    default:
      break;
  }
}

function upsertSession(s) {
  const merged = { ...sessions.get(s.session_id), ...s };
  sessions.set(s.session_id, merged);
  sidebar.upsert(s);
  if (s.session_id === current) {
    showStatus(merged);
    showActions(merged);
    showComposer(merged);
  }
}

/** Interrupt, restart and terminate, for the agents ClawMux runs (not for those that run on their own). */
function showActions(s) {
  const managed = s.launch === Launch.CLAUDE || s.launch === Launch.DEMO;
  $('agent-actions').hidden = !managed;
  const running = s.state !== State.DEAD;
  $('act-interrupt').hidden = !running || s.launch === Launch.DEMO;
  $('act-terminate').hidden = !running;
  $('act-restart').textContent = running ? 'Restart' : 'Start';
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

/** The "new agent" form; it offers the demo agent when Claude Code is not installed. */
async function openSpawnForm() {
  const form = $('spawn-form');
  form.hidden = false;
  $('spawn-name').focus();
  try {
    const caps = await backend.command({ command: 'capabilities' });
    const hints = [];
    if (!caps.claude) {
      hints.push('Claude Code is not installed here: the built-in demo agent will run instead.');
      $('spawn-demo').checked = true;
    }
    if (!caps.tmux) hints.push('tmux is not installed: agents cannot be started (apt install tmux).');
    $('spawn-hint').textContent = hints.join(' ');
    form.dataset.claude = caps.claude ? 'yes' : 'no';
  } catch (e) {
    $('spawn-hint').textContent = e.message;
  }
}

async function submitSpawn() {
  const name = $('spawn-name').value.trim();
  const demo = $('spawn-demo').checked;
  const request = { command: 'spawn', name, demo };
  if (!demo) {
    if ($('spawn-dir').value.trim()) request.work_dir = $('spawn-dir').value.trim();
    if ($('spawn-model').value.trim()) request.model = $('spawn-model').value.trim();
  } else if ($('spawn-dir').value.trim()) {
    request.work_dir = $('spawn-dir').value.trim();
  }
  try {
    const info = await backend.command(request);
    upsertSession(info);
    $('spawn-form').hidden = true;
    $('spawn-form').reset();
    $('spawn-hint').textContent = '';
    select(info.session_id);
  } catch (e) {
    // The form stays as typed, with the hub's reason.
    $('spawn-hint').textContent = e.message;
  }
}

function onMessage(m) {
  const isNew = store.add(m);
  conversations.get(m.session_id)?.add(m);
  if (!isNew) return;
  if (m.kind === Kind.ASSISTANT && m.text && readsAloud(m.session_id)) speaker.enqueue(m.text);
  const fromAgent = m.kind === Kind.ASSISTANT || m.kind === Kind.AGENT;
  if (m.session_id === current) {
    if (fromAgent) backend.markRead(current, m.id).catch(() => {});
  } else if (fromAgent) {
    sidebar.setUnread(m.session_id, sidebar.unread(m.session_id) + 1);
  }
}

/** The chat area under the messages, as docs/STATE-MACHINE.md's table says. */
function showStatus(s) {
  const status = $('chat-status');
  status.replaceChildren();
  status.className = 'chat-status';
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

function select(agent) {
  current = agent;
  sidebar.select(agent);
  $('chat-title').textContent = agent;
  let conv = conversations.get(agent);
  if (!conv) {
    conv = new Conversation($('chats'), agent, loadOlder);
    conversations.set(agent, conv);
    loadLatest(conv);
  } else if (conv.newest) {
    // Its chat was open before: what arrived while it was off screen is read now.
    markAllRead(conv.newest.id);
  }
  for (const c of conversations.values()) c.element.hidden = c !== conv;
  backend.viewing(agent);
  showStatus(sessions.get(agent) ?? {});
  showActions(sessions.get(agent) ?? {});
  showComposer(sessions.get(agent) ?? {});
  showVoice();
  if (!$('input').disabled) $('input').focus();
}

/** Chat is for the agents that read it: an observed session (ClawMux did not start it) shows its state only. */
function showComposer(s) {
  const observed = s.launch === Launch.OBSERVED;
  $('input').disabled = observed;
  $('send').disabled = observed;
  $('input').placeholder = observed
    ? 'Observed only: ClawMux did not start this Claude Code session, so it cannot send it messages.'
    : 'Message (Enter sends, Shift+Enter for a new line)';
}

async function deliver(item) {
  try {
    const stored = await backend.sendMessage(item.sessionId, item.text, item.clientId);
    conversations.get(item.sessionId)?.settleQueued(item.element, stored);
    outbox.splice(outbox.indexOf(item), 1);
    return true;
  } catch (e) {
    if (e instanceof HubError) {
      // Refused, not lost: say why and keep the text on screen.
      outbox.splice(outbox.indexOf(item), 1);
      item.element.classList.add('failed');
      notice(`Not sent: ${e.message}`);
      return true;
    }
    return false; // unreachable: stays queued until the feed is back
  }
}

async function flushOutbox() {
  for (const item of [...outbox]) {
    if (!(await deliver(item))) return;
  }
}

function send() {
  const input = $('input');
  const text = input.value;
  if (!current || !text.trim()) return;
  input.value = '';
  notice('');
  const clientId = crypto.randomUUID();
  const element = conversations.get(current).addQueued(clientId, text);
  const item = { sessionId: current, text, clientId, element };
  outbox.push(item);
  if (online && outbox.length === 1) deliver(item);
}

// ---- voice: speaking and listening (ui/js/voice.js) ----

let speaker;
let listener;
const READ_ALOUD_KEY = 'clawmux.readAloud';
const VOICE_MODE_KEY = 'clawmux.voiceMode';

function readAloudSet() {
  return new Set(JSON.parse(localStorage.getItem(READ_ALOUD_KEY) ?? '[]'));
}

/** Whether an agent's answers are read aloud: voice mode, or its own toggle. */
function readsAloud(agent) {
  return localStorage.getItem(VOICE_MODE_KEY) === 'on' || readAloudSet().has(agent);
}

function showVoice() {
  const state = $('voice-state');
  state.classList.toggle('listening', listener.ready);
  state.textContent = listener.ready ? 'Listening… (Escape cancels)'
    : listener.listening ? 'Starting the microphone…'
      : speaker.speaking ? 'Speaking…' : '';
  $('speak-stop').hidden = !speaker.speaking;
  $('speak-skip').hidden = !speaker.speaking;
  $('mic').setAttribute('aria-pressed', String(listener.listening));
  $('act-speak').hidden = !current;
  $('act-speak').setAttribute('aria-pressed', String(Boolean(current) && readAloudSet().has(current)));
}

function toggleReadAloud() {
  if (!current) return;
  const set = readAloudSet();
  if (set.has(current)) set.delete(current);
  else set.add(current);
  localStorage.setItem(READ_ALOUD_KEY, JSON.stringify([...set]));
  showVoice();
}

/** A recording goes to the agent on screen; one that fails stays on screen to be sent again (same id). */
async function sendRecording(agent, clip, recording = clip.recording ?? crypto.randomUUID()) {
  notice('Transcribing…');
  try {
    await backend.voice(agent, recording, clip);
    notice(clip.truncated ? 'Sent, though only its first 25 MiB (about 4.5 minutes) were recorded.' : '');
  } catch (e) {
    notice(`Not sent: ${e.message}`);
    const retry = document.createElement('button');
    retry.type = 'button';
    retry.className = 'retry-recording';
    retry.textContent = 'Retry the recording';
    retry.addEventListener('click', () => sendRecording(agent, clip, recording));
    $('notice').append(retry);
  }
}

/** The voice settings form: where speech becomes text and text speech (the hub keeps them). */
async function openVoiceSettings() {
  const form = $('voice-settings');
  form.hidden = false;
  $('vs-hint').textContent = '';
  try {
    const settings = await backend.command({ command: 'voice_settings' });
    form.settings = settings;
    $('vs-transcription').value = settings.transcription_url ?? '';
    $('vs-speech').value = settings.speech_url ?? '';
    $('vs-voice').value = settings.speech_voice ?? '';
    $('vs-key').value = '';
    $('vs-key').placeholder = settings.api_key_set ? 'set (leave empty to keep it)' : 'none';
    $('vs-transcription').focus();
  } catch (e) {
    $('vs-hint').textContent = e.message;
  }
}

async function saveVoiceSettings() {
  const { api_key_set: _set, ...loaded } = $('voice-settings').settings ?? {};
  const value = (id) => $(id).value.trim() || null;
  const settings = {
    ...loaded,
    transcription_url: value('vs-transcription'),
    speech_url: value('vs-speech'),
    speech_voice: value('vs-voice') ?? loaded.speech_voice ?? 'af_sky',
  };
  if (value('vs-key')) settings.api_key = value('vs-key');
  try {
    const saved = await backend.command({ command: 'set_voice_settings', settings });
    speaker.preferService = Boolean(saved.speech_url);
    $('voice-settings').hidden = true;
  } catch (e) {
    $('vs-hint').textContent = e.message;
  }
}

function startVoice() {
  speaker = new Speaker({ backend, onChange: showVoice, onProblem: notice });
  backend.command({ command: 'voice_settings' })
    .then((settings) => { speaker.preferService = Boolean(settings.speech_url); })
    .catch(() => {});
  $('voice-settings-open').addEventListener('click', openVoiceSettings);
  $('vs-cancel').addEventListener('click', () => { $('voice-settings').hidden = true; });
  $('voice-settings').addEventListener('submit', (e) => {
    e.preventDefault();
    saveVoiceSettings();
  });
  listener = new Listener({
    backend,
    onChange: showVoice,
    onProblem: notice,
    onRecording: (clip) => { if (current) sendRecording(current, clip); },
  });
  const agentOnScreen = () => current && sessions.get(current)?.launch !== Launch.OBSERVED;
  $('mic').addEventListener('click', () => {
    if (listener.listening) listener.stop();
    else if (agentOnScreen()) listener.start();
  });
  $('speak-stop').addEventListener('click', () => speaker.stop());
  $('speak-skip').addEventListener('click', () => speaker.skip());
  $('act-speak').addEventListener('click', toggleReadAloud);
  $('voice-mode').checked = localStorage.getItem(VOICE_MODE_KEY) === 'on';
  $('voice-mode').addEventListener('change', (e) => localStorage.setItem(VOICE_MODE_KEY, e.target.checked ? 'on' : 'off'));
  const typing = () => ['INPUT', 'TEXTAREA', 'SELECT'].includes(document.activeElement?.tagName);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && listener.listening) {
      e.preventDefault();
      listener.cancel();
    } else if (e.code === 'Space' && !e.repeat && !typing() && agentOnScreen()) {
      e.preventDefault();
      listener.start();
    }
  });
  document.addEventListener('keyup', (e) => {
    if (e.code === 'Space' && listener.listening && !typing()) {
      e.preventDefault();
      listener.stop();
    }
  });
  showVoice();
}

function start() {
  sidebar = new Sidebar($('agents'), select);
  try {
    backend = createBackend({ onEvent, onConnection, cursor: () => store.cursor() });
  } catch (e) {
    notice(e.message);
    return;
  }
  $('new-agent').addEventListener('click', openSpawnForm);
  $('spawn-cancel').addEventListener('click', () => { $('spawn-form').hidden = true; });
  $('spawn-form').addEventListener('submit', (e) => {
    e.preventDefault();
    submitSpawn();
  });
  // A link in a message opens outside: a new tab in a browser, the user's browser from the window.
  $('chats').addEventListener('click', (e) => {
    const link = e.target.closest?.('a[href]');
    if (!link) return;
    e.preventDefault();
    Promise.resolve(backend.openLink(link.href)).catch((err) => notice(err.message));
  });
  $('import-go').addEventListener('click', runImport);
  $('import-later').addEventListener('click', () => { $('import-offer').hidden = true; });
  $('act-interrupt').addEventListener('click', () => act('interrupt'));
  $('act-restart').addEventListener('click', () => act('restart'));
  $('act-terminate').addEventListener('click', () => act('terminate'));
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
  startVoice();
  Promise.resolve(backend.connect()).catch((e) => fatal(e.message ?? String(e)));
  // For tests and debugging: the live objects, read-only in spirit.
  window.clawmux = { backend, store, conversations, speaker, listener };
}

start();
