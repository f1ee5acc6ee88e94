// The voice controls of the page (the engines are in voice.js): which agents' answers are read aloud
// (voice mode, or an agent's own toggle), the speaking and listening indicator, push-to-talk (hold Space
// outside the text box, or click the mic; Escape cancels), and recordings that failed to send, kept on
// screen to be sent again under the same id.

import { $, notice } from './dom.js';
import { Code, Command, DownloadState, Kind, Launch, LocalVoice, Need, UiEvent } from './names.js';
import { HandsFree } from './hands-free.js';
import { Listener, Speaker, speakable } from './voice.js';
import { VoiceSettingsForm } from './voice-settings.js';

const READ_ALOUD_KEY = 'clawmux.readAloud';
const VOICE_MODE_KEY = 'clawmux.voiceMode';

function readAloudSet() {
  return new Set(JSON.parse(localStorage.getItem(READ_ALOUD_KEY) ?? '[]'));
}

export class VoicePanel {
  /** `current()` is the agent on screen, `session(agent)` its row, `agents()` every agent listed,
   * `select(agent)` shows one. */
  constructor(backend, { current, session, agents, select }) {
    this.events = {
      [UiEvent.MODEL_DOWNLOAD]: (e) => this.settings.progress(e),
      [UiEvent.VOICE_DOWNLOAD]: (e) => this.voiceProgress(e),
    };
    this.backend = backend;
    this.current = current;
    this.session = session;
    this.localVoice = LocalVoice.JOE_MEDIUM;
    this.speaker = new Speaker({
      backend,
      onChange: () => { this.handsFree?.hint(); this.show(); },
      onProblem: notice,
      onMissingVoice: () => this.offerVoice(),
    });
    this.settings = new VoiceSettingsForm(backend, (saved) => this.use(saved), agents);
    this.readSettings();
    this.listener = new Listener({
      backend,
      onChange: () => this.show(),
      onProblem: notice,
      onRecording: (clip) => { if (this.current()) this.sendRecording(this.current(), clip); },
    });
    this.handsFree = new HandsFree({
      backend,
      speaker: this.speaker,
      shown: () => this.current(),
      onHeard: (heard) => this.heard(heard, select),
      onChange: () => this.show(),
      onProblem: notice,
      onStart: () => this.readSettings(),
    });
    this.wire();
    this.show();
  }

  /** What the hub made of a hands-free utterance: shown under the toggle; an agent to show is shown. */
  heard(heard, select) {
    this.lastHeard = heard.heard ? `“${heard.heard}”` : '';
    if (heard.done === 'show' && heard.session_id) select?.(heard.session_id);
    this.show();
  }

  /** Whether an agent's answers are read aloud: hands-free or voice mode, or its own toggle. */
  readsAloud(agent) {
    return this.handsFree?.on || localStorage.getItem(VOICE_MODE_KEY) === 'on' || readAloudSet().has(agent);
  }

  /** An agent's answer arrived: read it if it should be; hands-free reads its first paragraph, with
   * "say more" for the rest. */
  answered(agent, text) {
    if (!text || !this.readsAloud(agent)) return;
    if (!this.handsFree.on) {
      this.speaker.enqueue(text, agent);
      return;
    }
    const paragraphs = text.split(/\n\s*\n/).map(speakable).filter(Boolean);
    const first = paragraphs[0] ?? '';
    this.handsFree.say(`${agent}: ${first}${paragraphs.length > 1 ? ' Say more for the rest.' : ''}`, agent);
  }

  /** A message arrived: an answer is read aloud if it should be. */
  message(m) {
    if (m.kind === Kind.ASSISTANT) this.answered(m.session_id, m.text);
  }

  /** An agent's row changed: a request it opened is said aloud if its answers are. */
  rowChanged(_change, row, before) {
    const request = row.needs?.request;
    if (request && request.id !== before?.needs?.request?.id) this.needed(row.session_id, row.needs);
  }

  /** An agent needs the user (a permission, a question, a plan): said aloud if its answers are. */
  needed(agent, needs) {
    if (!this.readsAloud(agent)) return;
    const questions = (needs.request?.tool_input?.questions ?? []).map((q) => q.question).join(' ');
    const sentence = `${agent} needs you. ${needs.reason ?? ''} ${questions}`.trim();
    // Hands-free says what can be answered aloud: a question's options, else allow or deny.
    const options = needs.request?.tool_input?.questions?.[0]?.options?.map((o) => o.label) ?? [];
    const answers = needs.need === Need.ANSWER ? `${options.join(', or ')}?` : 'Allow, or deny?';
    if (this.handsFree.on) this.handsFree.say(`${sentence} ${answers}`, agent);
    else this.speaker.enqueue(sentence, agent);
  }

  show() {
    const { speaker, listener } = this;
    const current = this.current();
    const state = $('voice-state');
    state.classList.toggle('listening', listener.ready);
    state.textContent = listener.ready ? 'Listening… (Escape cancels)'
      : listener.listening ? 'Starting the microphone…'
        : speaker.speaking ? 'Speaking…' : '';
    $('speak-stop').hidden = !speaker.speaking;
    $('speak-skip').hidden = !speaker.speaking;
    $('mic').setAttribute('aria-pressed', String(listener.listening));
    const hands = this.handsFree;
    $('hands-free').setAttribute('aria-pressed', String(hands.on));
    $('hands-free-mute').hidden = !hands.on;
    $('hands-free-mute').textContent = hands.muted ? 'Unmute' : 'Mute';
    const words = { starting: 'Starting the microphone…', listening: 'Listening', hearing: 'Hearing you…',
      thinking: 'Understanding…', muted: 'Muted', off: '' };
    $('hands-free-state').textContent = hands.on ? `${words[hands.state] ?? ''} ${this.lastHeard ?? ''}`.trim() : '';
    $('hands-free-state').classList.toggle('on', hands.on && !hands.muted);
    $('act-speak').hidden = !current;
    $('act-speak').setAttribute('aria-pressed', String(Boolean(current) && readAloudSet().has(current)));
  }

  toggleReadAloud() {
    const current = this.current();
    if (!current) return;
    const set = readAloudSet();
    if (set.has(current)) set.delete(current);
    else set.add(current);
    localStorage.setItem(READ_ALOUD_KEY, JSON.stringify([...set]));
    this.show();
  }

  /** Starts listening; the hub loads its speech model meanwhile, so the words do not wait for it. */
  talk() {
    this.backend.command({ command: Command.WARM_VOICE }).catch(() => {});
    this.listener.start();
  }

  /** The voice settings, read again: which engine speaks, which voice the device has. */
  readSettings() {
    this.backend.command({ command: Command.VOICE_SETTINGS }).then((settings) => this.use(settings)).catch(() => {});
  }

  use(settings) {
    this.speaker.use(settings.text_to_speech);
    this.localVoice = settings.local_voice ?? this.localVoice;
  }

  /** The device's voice was wanted and is not here: said once, with the way to get it. */
  offerVoice() {
    notice(this.speaker.hasVoices()
      ? 'Reading aloud with this window\'s voice until the device\'s own is downloaded (60 MiB, once).'
      : 'No voice to read aloud with here yet: the device\'s own is downloaded once (60 MiB).');
    const get = document.createElement('button');
    get.type = 'button';
    get.className = 'get-voice';
    get.textContent = 'Get the voice';
    get.addEventListener('click', () => {
      get.disabled = true;
      this.backend.command({ command: Command.DOWNLOAD_VOICE, voice: this.localVoice })
        .then(() => notice('Downloading the device\'s voice…'))
        .catch((e) => notice(`The voice was not downloaded: ${e.message}`));
    });
    $('notice').append(get);
  }

  /** A `voice_download` event: the settings form shows it; once it is here, it speaks. */
  voiceProgress(e) {
    this.settings.voiceProgress(e);
    if (e.state === DownloadState.DONE) {
      this.speaker.voiceMissing = false;
      notice('The device\'s voice is here: answers are read with it from now on.');
    } else if (e.state === DownloadState.FAILED) {
      notice(`The voice was not downloaded: ${e.message}`);
    }
  }

  /** A recording goes to the agent on screen; one that fails stays on screen to be sent again (same id). */
  async sendRecording(agent, clip, recording = clip.recording ?? crypto.randomUUID()) {
    notice('Transcribing…');
    try {
      await this.backend.voice(agent, recording, clip);
      notice(clip.truncated ? 'Sent, though only its first 25 MiB (about 4.5 minutes) were recorded.' : '');
    } catch (e) {
      notice(`Not sent: ${e.message}`);
      if (e.code === Code.MODEL_NOT_DOWNLOADED) {
        const get = document.createElement('button');
        get.type = 'button';
        get.className = 'get-model';
        get.textContent = 'Get the model';
        get.addEventListener('click', () => this.settings.open());
        $('notice').append(get);
      }
      const retry = document.createElement('button');
      retry.type = 'button';
      retry.className = 'retry-recording';
      retry.textContent = 'Retry the recording';
      retry.addEventListener('click', () => this.sendRecording(agent, clip, recording));
      $('notice').append(retry);
    }
  }

  wire() {
    const { speaker, listener } = this;
    const agentOnScreen = () => this.current() && this.session(this.current())?.launch !== Launch.OBSERVED;
    $('mic').addEventListener('click', () => {
      if (listener.listening) listener.stop();
      else if (agentOnScreen()) this.talk();
    });
    const handsFree = () => (this.handsFree.on ? this.handsFree.stop() : this.handsFree.start());
    $('hands-free').addEventListener('click', handsFree);
    $('hands-free-mute').addEventListener('click', () => this.handsFree.toggleMute());
    document.addEventListener('keydown', (e) => {
      if (!e.ctrlKey || !e.shiftKey) return;
      if (e.code === 'KeyH') { e.preventDefault(); handsFree(); }
      if (e.code === 'KeyM' && this.handsFree.on) { e.preventDefault(); this.handsFree.toggleMute(); }
    });
    $('speak-stop').addEventListener('click', () => speaker.stop());
    $('speak-skip').addEventListener('click', () => speaker.skip());
    $('act-speak').addEventListener('click', () => this.toggleReadAloud());
    $('voice-mode').checked = localStorage.getItem(VOICE_MODE_KEY) === 'on';
    $('voice-mode').addEventListener('change', (e) => localStorage.setItem(VOICE_MODE_KEY, e.target.checked ? 'on' : 'off'));
    const typing = () => ['INPUT', 'TEXTAREA', 'SELECT'].includes(document.activeElement?.tagName);
    document.addEventListener('keydown', (e) => {
      if (e.key === 'Escape' && listener.listening) {
        e.preventDefault();
        listener.cancel();
      } else if (e.code === 'Space' && !e.repeat && !typing() && agentOnScreen()) {
        e.preventDefault();
        this.talk();
      }
    });
    document.addEventListener('keyup', (e) => {
      if (e.code === 'Space' && listener.listening && !typing()) {
        e.preventDefault();
        listener.stop();
      }
    });
  }
}
