// The voice settings form: where speech becomes text and text speech. The hub keeps them; the key is
// never shown back (empty keeps it), and a bad address is refused with the hub's reason, nothing saved.

import { $ } from './dom.js';

export class VoiceSettingsForm {
  /** `onSaved(settings)` gets what the hub saved. */
  constructor(backend, onSaved) {
    this.backend = backend;
    this.onSaved = onSaved;
    this.loaded = {};
    $('voice-settings-open').addEventListener('click', () => this.open());
    $('vs-cancel').addEventListener('click', () => { $('voice-settings').hidden = true; });
    $('voice-settings').addEventListener('submit', (e) => {
      e.preventDefault();
      this.save();
    });
  }

  async open() {
    $('voice-settings').hidden = false;
    $('vs-hint').textContent = '';
    try {
      const settings = await this.backend.command({ command: 'voice_settings' });
      this.loaded = settings;
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

  async save() {
    const { api_key_set: _set, ...loaded } = this.loaded;
    const value = (id) => $(id).value.trim() || null;
    const settings = {
      ...loaded,
      transcription_url: value('vs-transcription'),
      speech_url: value('vs-speech'),
      speech_voice: value('vs-voice') ?? loaded.speech_voice ?? 'af_sky',
    };
    if (value('vs-key')) settings.api_key = value('vs-key');
    try {
      const saved = await this.backend.command({ command: 'set_voice_settings', settings });
      $('voice-settings').hidden = true;
      this.onSaved(saved);
    } catch (e) {
      $('vs-hint').textContent = e.message;
    }
  }
}
