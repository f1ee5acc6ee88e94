// The voice settings form: where speech becomes text (on this device with a downloaded model, or the
// user's own service) and where text becomes speech (the device's own voice, the user's service, or the
// window's voices). The hub keeps them; the key is never shown back (empty keeps it), and a bad address
// is refused with the hub's reason, nothing saved.
//
// The device's models and its voice are listed with the disk each takes and whether it is here; a
// download shows its progress (the hub's `model_download` and `voice_download` events) and can be
// cancelled, keeping what came for the next try.

import { VARIANTS, chosenVariants, chosenVoices, keepVariants, keepVoices, variantName, variantOf, voiceOf } from './agent-voices.js';
import { $ } from './dom.js';
import { Command, DownloadState, LocalModel, SpeechToText, TextToSpeech } from './names.js';

const MIB = 1024 * 1024;
const LABELS = {
  [LocalModel.TINY_EN]: 'tiny.en: fastest, least accurate',
  [LocalModel.BASE_EN]: 'base.en: fast and good (recommended)',
  [LocalModel.SMALL_EN]: 'small.en: most accurate, slower',
};

export class VoiceSettingsForm {
  /** `onSaved(settings)` gets what the hub saved; `agents()` lists the agents, each given a voice here. */
  constructor(backend, onSaved, agents = () => []) {
    this.agents = agents;
    this.backend = backend;
    this.onSaved = onSaved;
    this.loaded = {};
    this.models = [];
    this.voices = [];
    $('voice-settings-open').addEventListener('click', () => this.open());
    $('vs-cancel').addEventListener('click', () => { $('voice-settings').hidden = true; });
    $('voice-settings').addEventListener('submit', (e) => {
      e.preventDefault();
      this.save();
    });
    $('vs-stt').addEventListener('change', () => this.showEngine());
    $('vs-tts').addEventListener('change', () => { this.showEngine(); this.showAgentVoices(); });
    $('vs-voice-download').addEventListener('click', () => this.downloadVoice());
    $('vs-model').addEventListener('change', () => this.showModel());
    $('vs-download').addEventListener('click', () => this.download());
    $('vs-download-cancel').addEventListener('click', () => this.backend.command({ command: Command.CANCEL_DOWNLOAD }).catch(() => {}));
  }

  async open() {
    $('voice-settings').hidden = false;
    $('vs-hint').textContent = '';
    try {
      const settings = await this.backend.command({ command: Command.VOICE_SETTINGS });
      this.loaded = settings;
      $('vs-stt').value = settings.speech_to_text;
      $('vs-tts').value = settings.text_to_speech ?? TextToSpeech.DEVICE;
      this.showAgentVoices();
      $('vs-transcription').value = settings.transcription_url ?? '';
      $('vs-speech').value = settings.speech_url ?? '';
      $('vs-voice').value = settings.speech_voice ?? '';
      $('vs-spoken').checked = settings.spoken_answers !== false;
      $('vs-key').value = '';
      $('vs-key').placeholder = settings.api_key_set ? 'set (leave empty to keep it)' : 'none';
      await this.loadModels(settings.local_model);
      this.showEngine();
      $('vs-stt').focus();
    } catch (e) {
      $('vs-hint').textContent = e.message;
    }
  }

  async loadModels(selected = $('vs-model').value) {
    const listed = await this.backend.command({ command: Command.VOICE_MODELS });
    this.models = listed.models;
    this.voices = listed.voices ?? [];
    this.showVoice();
    const select = $('vs-model');
    select.replaceChildren(...this.models.map((m) => {
      const option = document.createElement('option');
      option.value = m.model;
      option.textContent = `${LABELS[m.model] ?? m.model} (${Math.round(m.size / MIB)} MiB${m.downloaded ? ', downloaded' : ''})`;
      return option;
    }));
    select.value = selected || 'base.en';
    this.showModel();
  }

  showEngine() {
    const device = $('vs-stt').value === SpeechToText.DEVICE;
    $('vs-device').hidden = !device;
    $('vs-service').hidden = device;
    $('vs-tts-device').hidden = $('vs-tts').value !== TextToSpeech.DEVICE;
    $('vs-tts-service').hidden = $('vs-tts').value !== TextToSpeech.SERVICE;
  }

  /** The device's voice the settings name: here, being downloaded, or to download. */
  showVoice() {
    const v = this.voices.find((x) => x.voice === this.loaded.local_voice) ?? this.voices[0];
    if (!v) return;
    const state = $('vs-voice-state');
    state.className = 'state';
    $('vs-voice-download').hidden = v.downloaded || v.downloading;
    $('vs-voice-download').textContent = `Download the voice (${Math.round(v.size / MIB)} MiB)`;
    $('vs-voice-progress').hidden = !v.downloading;
    if (v.downloaded) state.textContent = `${v.voice}: here, it speaks on this device.`;
    else if (v.downloading) state.textContent = 'Downloading the voice…';
    else if (v.failure) {
      state.textContent = v.failure;
      state.classList.add('failed');
    } else state.textContent = `${v.voice} (Piper, CC0) is downloaded once; until then the window's voices speak.`;
  }

  async downloadVoice() {
    try {
      const voice = this.loaded.local_voice ?? this.voices[0]?.voice;
      await this.backend.command({ command: Command.DOWNLOAD_VOICE, voice });
      await this.loadModels();
    } catch (e) {
      $('vs-hint').textContent = e.message;
    }
  }

  /** A `voice_download` event from the hub. */
  voiceProgress(e) {
    if (e.state === DownloadState.RUNNING) {
      $('vs-voice-progress').hidden = false;
      $('vs-voice-progress').value = e.total ? e.done / e.total : 0;
      $('vs-voice-state').textContent = `Downloading the voice… ${(e.done / MIB).toFixed(1)} of ${(e.total / MIB).toFixed(1)} MiB`;
      $('vs-voice-download').hidden = true;
      return;
    }
    if (!$('voice-settings').hidden) this.loadModels().catch(() => {});
  }

  /** The chosen model: here, being downloaded, or to download. */
  showModel() {
    const m = this.models.find((x) => x.model === $('vs-model').value);
    if (!m) return;
    const state = $('vs-model-state');
    state.className = 'state';
    $('vs-download').hidden = m.downloaded || m.downloading;
    $('vs-download').textContent = m.partial ? 'Resume the download' : `Download (${Math.round(m.size / MIB)} MiB)`;
    $('vs-download-cancel').hidden = !m.downloading;
    $('vs-progress').hidden = !m.downloading;
    if (m.downloaded) state.textContent = 'Downloaded: speech is heard on this device.';
    else if (m.downloading) state.textContent = 'Downloading…';
    else if (m.failure) {
      state.textContent = m.failure;
      state.classList.add('failed');
    } else state.textContent = 'Not downloaded yet: it is downloaded once, then speech never leaves this device.';
  }

  async download() {
    try {
      await this.backend.command({ command: Command.DOWNLOAD_MODEL, model: $('vs-model').value });
      await this.loadModels();
    } catch (e) {
      $('vs-hint').textContent = e.message;
    }
  }

  /** A `model_download` event from the hub. */
  progress(e) {
    const m = this.models.find((x) => x.model === e.model);
    if (!m) return;
    if (e.state === DownloadState.RUNNING) {
      m.downloading = true;
      if ($('vs-model').value === e.model) {
        $('vs-progress').hidden = false;
        $('vs-progress').value = e.total ? e.done / e.total : 0;
        $('vs-model-state').textContent = `Downloading… ${(e.done / MIB).toFixed(1)} of ${(e.total / MIB).toFixed(1)} MiB`;
        $('vs-download').hidden = true;
        $('vs-download-cancel').hidden = false;
      }
      return;
    }
    // It ended: the list says how.
    if (!$('voice-settings').hidden) this.loadModels().catch(() => {});
  }

  /** A voice per agent: with the device's voice, a variant of it; with the window's, one of this page's
   * voices. Automatic (the one it gets by its name) or one chosen. */
  showAgentVoices() {
    const list = $('vs-agent-voices');
    list.replaceChildren();
    const engine = $('vs-tts').value;
    $('vs-agents').hidden = engine === TextToSpeech.SERVICE;
    if (engine === TextToSpeech.DEVICE) this.showAgentVariants(list);
    else this.showAgentWindowVoices(list);
  }

  showAgentVariants(list) {
    $('vs-agents-legend').textContent = "Each agent's voice (the device's voice, higher or lower)";
    const chosen = chosenVariants();
    for (const agent of [...this.agents()].sort()) {
      const select = document.createElement('select');
      select.dataset.agent = agent;
      select.append(new Option(`Automatic: ${variantName(variantOf(agent, {}))}`, ''));
      for (const steps of VARIANTS) select.append(new Option(variantName(steps), String(steps)));
      select.value = VARIANTS.includes(chosen[agent]) ? String(chosen[agent]) : '';
      const label = document.createElement('label');
      label.append(agent, select);
      list.append(label);
    }
  }

  showAgentWindowVoices(list) {
    $('vs-agents-legend').textContent = "Each agent's voice (this window's voices)";
    const voices = 'speechSynthesis' in window ? speechSynthesis.getVoices() : [];
    const chosen = chosenVoices();
    if (voices.length === 0) $('vs-agents').hidden = true;
    for (const agent of [...this.agents()].sort()) {
      const select = document.createElement('select');
      select.dataset.agent = agent;
      const auto = voiceOf(agent, voices, { chosen: {} });
      select.append(new Option(`Automatic: ${auto.voice?.name ?? 'default'}, pitch ${auto.pitch}`, ''));
      for (const v of voices) select.append(new Option(`${v.name} (${v.lang})`, v.name));
      select.value = voices.some((v) => v.name === chosen[agent]) ? chosen[agent] : '';
      const label = document.createElement('label');
      label.append(agent, select);
      list.append(label);
    }
  }

  /** Keeps the voices (or the device voice's variants) chosen for the agents listed (others keep theirs). */
  keepAgentVoices() {
    const variants = $('vs-tts').value === TextToSpeech.DEVICE;
    const chosen = variants ? chosenVariants() : chosenVoices();
    for (const select of $('vs-agent-voices').querySelectorAll('select')) {
      if (select.value) chosen[select.dataset.agent] = variants ? Number(select.value) : select.value;
      else delete chosen[select.dataset.agent];
    }
    if (variants) keepVariants(chosen);
    else keepVoices(chosen);
  }

  async save() {
    this.keepAgentVoices();
    const { api_key_set: _set, ...loaded } = this.loaded;
    const value = (id) => $(id).value.trim() || null;
    const settings = {
      ...loaded,
      speech_to_text: $('vs-stt').value,
      text_to_speech: $('vs-tts').value,
      local_model: $('vs-model').value || loaded.local_model,
      transcription_url: value('vs-transcription'),
      speech_url: value('vs-speech'),
      speech_voice: value('vs-voice') ?? loaded.speech_voice ?? 'af_sky',
      spoken_answers: $('vs-spoken').checked,
    };
    if (value('vs-key')) settings.api_key = value('vs-key');
    try {
      const saved = await this.backend.command({ command: Command.SET_VOICE_SETTINGS, settings });
      $('voice-settings').hidden = true;
      this.onSaved(saved);
    } catch (e) {
      $('vs-hint').textContent = e.message;
    }
  }
}
