// Hands-free mode in a browser: the page listens continuously (the microphone's samples through an
// AudioWorklet), finds each utterance with a voice-activity detector of its own (loudness against the
// room's noise floor), and sends it to the hub as a WAV (`POST /api/voice/hear`), which hears it on the
// device and answers what it made of it; the answer is spoken. Nothing is recorded or sent while nobody
// speaks. The user speaking stops the app's speech at once (barge-in); the app's own speech heard back is
// told to the hub, which drops an utterance made of its words.

import { Code, Command } from './names.js';
import { openMicrophone, wavOf } from './voice.js';

/** A frame of the detector: 20 ms. */
const FRAME_S = 0.02;
/** Speech starts after this many loud frames in a row (60 ms), and ends after this many quiet ones. */
const START_FRAMES = 3;
const END_FRAMES = 35;
/** Audio kept from before the speech started, so its first syllable is not cut. */
const PRE_ROLL_S = 0.3;
/** The shortest utterance sent, and the longest (then it is sent as it is and a new one starts). */
const MIN_S = 0.25;
const MAX_S = 30;
/** Loud means this far above the noise floor, and at least this loud (RMS of samples in [-1, 1]). */
const OVER_FLOOR = 3;
const AT_LEAST = 0.01;
/** While the app speaks, the user must be this much louder still to be heard over it (barge-in). */
const OVER_OWN_SPEECH = 2.5;

/** Loudness of one frame. */
function rms(samples) {
  let sum = 0;
  for (const x of samples) sum += x * x;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/**
 * The detector as a pure state machine over frames, so it is tested without a microphone:
 * `push(frame)` returns `'start'`, `'end'` or nothing; `speaking` says whether the app's voice is on.
 */
export class Detector {
  constructor() {
    this.floor = null;
    this.loud = 0;
    this.quiet = 0;
    this.inSpeech = false;
    this.frames = 0;
  }

  push(level, appSpeaking = false) {
    const threshold = Math.max(AT_LEAST, (this.floor ?? level) * OVER_FLOOR) * (appSpeaking ? OVER_OWN_SPEECH : 1);
    // The floor follows the room slowly up and quickly down, from quiet frames outside speech only: a
    // voice (or the app's echo) does not raise it.
    if (!this.inSpeech && (this.floor === null || level <= threshold)) {
      this.floor = this.floor === null ? level : Math.min(level, this.floor * 0.98 + level * 0.02);
    }
    if (!this.inSpeech) {
      this.loud = level > threshold ? this.loud + 1 : 0;
      if (this.loud >= START_FRAMES) {
        this.inSpeech = true;
        this.quiet = 0;
        this.frames = this.loud;
        return 'start';
      }
      return null;
    }
    this.frames += 1;
    this.quiet = level > threshold ? 0 : this.quiet + 1;
    if (this.quiet >= END_FRAMES || this.frames * FRAME_S >= MAX_S) {
      this.inSpeech = false;
      this.loud = 0;
      return 'end';
    }
    return null;
  }
}

export class HandsFree {
  /**
   * `shown()` is the agent on screen; `speaker` says the answers (and is stopped by the user's voice);
   * `onHeard(heard)` gets what the hub made of each utterance; `onChange()` redraws the indicator.
   */
  constructor({ backend, speaker, shown, onHeard, onChange, onProblem }) {
    Object.assign(this, { backend, speaker, shown, onHeard, onChange, onProblem });
    this.on = false;
    this.muted = false;
    this.state = 'off'; // off | starting | listening | hearing | thinking
    this.lastSaid = '';
  }

  async start() {
    if (this.on) return;
    this.on = true;
    this.set('starting');
    try {
      let frames = null;
      this.microphone = await openMicrophone((block) => frames?.(block), {
        audio: { echoCancellation: true, noiseSuppression: true },
        // Two detector frames a message, and the audio thread's larger buffers: listening for hours
        // wakes the page 25 times a second, and a barge-in is still heard within 100 ms.
        frameSeconds: 2 * FRAME_S,
        latencyHint: 'playback',
        verb: 'listen',
        then: 'to use hands-free',
      });
      frames = this.framer(this.microphone.rate);
      this.backend.command({ command: Command.WARM_VOICE }).catch(() => {});
      this.set('listening');
    } catch (e) {
      await this.stop();
      this.onProblem(e.message);
    }
  }

  /** What takes the samples: frames them, runs the detector, keeps the pre-roll and the utterance, and
   * sends it at its end. */
  framer(rate) {
    const frameLength = Math.round(rate * FRAME_S);
    const detector = new Detector();
    let pending = new Float32Array(0);
    let preRoll = [];
    let utterance = null;
    return (block) => {
      // Each block is a fresh buffer (handed over by the worklet), so frames may be views into it.
      let data = block;
      if (pending.length) {
        data = new Float32Array(pending.length + block.length);
        data.set(pending);
        data.set(block, pending.length);
      }
      let at = 0;
      for (; at + frameLength <= data.length; at += frameLength) {
        const frame = data.subarray(at, at + frameLength);
        if (this.muted) continue;
        const edge = detector.push(rms(frame), this.speaker.speaking);
        if (edge === 'start') {
          // Barge-in: the user speaks, the app stops at once.
          this.speaker.stop();
          utterance = [...preRoll];
          this.set('hearing');
        }
        if (utterance) utterance.push(frame);
        else {
          preRoll.push(frame);
          if (preRoll.length * FRAME_S > PRE_ROLL_S) preRoll.shift();
        }
        if (edge === 'end') {
          const frames = utterance;
          utterance = null;
          preRoll = [];
          if (frames.length * FRAME_S >= MIN_S) this.send(wavOf(frames, rate));
          else this.set('listening');
        }
      }
      pending = data.slice(at);
    };
  }

  async send(blob) {
    this.set('thinking');
    try {
      const heard = await this.backend.hear(blob, crypto.randomUUID(), this.shown(), this.lastSaid);
      this.onHeard(heard);
      if (heard.say) this.say(heard.say);
    } catch (e) {
      this.onProblem(`Not heard: ${e.message}`);
      // Without the speech model nothing can be heard: listening on would only send every word in vain.
      if (e.code === Code.MODEL_NOT_DOWNLOADED) {
        await this.stop();
        this.onProblem('Hands-free needs the speech model: get it in the voice settings.');
      }
    }
    if (this.on) this.set(this.muted ? 'muted' : 'listening');
  }

  /** Says `text` (and remembers it: heard back through the speakers, it is not the user's). */
  say(text) {
    this.lastSaid = text;
    this.speaker.enqueue(text);
  }

  /** Mutes or unmutes at once: a muted microphone sends nothing. */
  toggleMute() {
    this.muted = !this.muted;
    if (this.on) this.set(this.muted ? 'muted' : 'listening');
  }

  async stop() {
    this.on = false;
    await this.microphone?.close().catch(() => {});
    this.microphone = null;
    this.set('off');
  }

  set(state) {
    this.state = state;
    this.onChange();
  }
}
