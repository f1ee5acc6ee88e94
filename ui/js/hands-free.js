// Hands-free mode: listening continuously, each utterance found by a voice-activity detector (loudness
// against the room's noise floor) and heard by the hub on the device, which answers what it made of it;
// the answer is spoken. In a browser the page listens (the microphone's samples through an AudioWorklet)
// and sends each utterance as a WAV (`POST /api/voice/hear`); in the desktop window, whose webview cannot
// stream a microphone, the app listens with the same detector (`clawmux_capture::listen`) and keeps each
// utterance for the page to have heard. Nothing is recorded or sent while nobody
// speaks. The user speaking stops the app's speech at once (barge-in); the app's own speech heard back is
// told to the hub, which drops an utterance made of its words.

import { Code, Command, Listened } from './names.js';
import { openMicrophone, wavOf } from './voice.js';

/** A frame of the detector: 20 ms. */
const FRAME_S = 0.02;
/** Speech starts after this many loud frames in a row (60 ms), and ends after this many quiet ones. */
const START_FRAMES = 3;
const END_FRAMES = 35;
/** Audio kept from before the speech started, so its first syllable is not cut. */
const PRE_ROLL_S = 0.3;
/** The shortest utterance sent, voiced (a click is shorter), and the longest (then it is sent as it is and
 * a new one starts). */
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
    this.voiced = 0; // frames from the start to the last loud one
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
        this.voiced = this.loud;
        return 'start';
      }
      return null;
    }
    this.frames += 1;
    if (level > threshold) {
      this.quiet = 0;
      this.voiced = this.frames;
    } else this.quiet += 1;
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
  /** `onStart()` is told when it starts (the page reads the voice settings again: they may have changed
   * elsewhere). */
  constructor({ backend, speaker, shown, onHeard, onChange, onProblem, onStart = () => {} }) {
    Object.assign(this, { backend, speaker, shown, onHeard, onChange, onProblem, onStart });
    this.on = false;
    this.muted = false;
    this.state = 'off'; // off | starting | listening | hearing | thinking
    this.lastSaid = '';
  }

  async start() {
    if (this.on) return;
    this.on = true;
    this.set('starting');
    this.onStart();
    try {
      this.ears = this.backend.listen ? await this.appEars() : await this.pageEars();
      this.hinted = null;
      this.hint();
      this.backend.command({ command: Command.WARM_VOICE }).catch(() => {});
      this.set('listening');
    } catch (e) {
      await this.stop();
      this.onProblem(e.message);
    }
  }

  /** The desktop window: the app listens (its webview cannot stream the microphone) and cuts the
   * utterances with the same detector; the page is told when speech starts and what the app kept. */
  appEars() {
    return this.backend.listen((heard) => {
      if (!this.on) return;
      if (heard.type === Listened.START) this.heardStart();
      else if (heard.type === Listened.UTTERANCE) this.send({ recording: heard.recording });
      else if (heard.type === Listened.DROPPED) this.set(this.muted ? 'muted' : 'listening');
      else if (heard.type === Listened.MICROPHONE_LOST) {
        this.stop();
        this.onProblem(heard.message);
      }
    });
  }

  /** A browser: the page listens, through an AudioWorklet, and runs the detector itself. */
  async pageEars() {
    let frames = null;
    const microphone = await openMicrophone((block) => frames?.(block), {
      audio: { echoCancellation: true, noiseSuppression: true },
      // Two detector frames a message, and the audio thread's larger buffers: listening for hours
      // wakes the page 25 times a second, and a barge-in is still heard within 100 ms.
      frameSeconds: 2 * FRAME_S,
      latencyHint: 'playback',
      verb: 'listen',
      then: 'to use hands-free',
    });
    frames = this.framer(microphone.rate);
    return { hint() {}, close: () => microphone.close() };
  }

  /** Tells the ears what they cannot hear: whether the app speaks (its echo is not the user) and whether
   * the user muted them. Called when either changes. */
  hint() {
    const now = { speaking: this.speaker.speaking, muted: this.muted };
    if (!this.ears || (this.hinted?.speaking === now.speaking && this.hinted?.muted === now.muted)) return;
    this.hinted = now;
    this.ears.hint(now);
  }

  /** Someone speaks: the app stops its own speech at once (barge-in). */
  heardStart() {
    this.speaker.stop();
    this.set('hearing');
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
          this.heardStart();
          utterance = [...preRoll];
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
          if (detector.voiced * FRAME_S >= MIN_S) this.send({ blob: wavOf(frames, rate), recording: crypto.randomUUID() });
          else this.set('listening');
        }
      }
      pending = data.slice(at);
    };
  }

  /** Has an utterance heard: `{blob, recording}` from the page, `{recording}` kept by the app. */
  async send(utterance) {
    this.set('thinking');
    try {
      const heard = await this.backend.hear(utterance, this.shown(), this.lastSaid);
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

  /** Says `text`, in `agent`'s voice if it is an agent's (and remembers it: heard back through the
   * speakers, it is not the user's). */
  say(text, agent = null) {
    this.lastSaid = text;
    this.speaker.enqueue(text, agent);
  }

  /** Mutes or unmutes at once: a muted microphone sends nothing. */
  toggleMute() {
    this.muted = !this.muted;
    this.hint();
    if (this.on) this.set(this.muted ? 'muted' : 'listening');
  }

  /** Off at once, as the user sees it; the microphone is let go just after. */
  async stop() {
    this.on = false;
    const ears = this.ears;
    this.ears = null;
    this.set('off');
    await ears?.close().catch(() => {});
  }

  set(state) {
    this.state = state;
    this.onChange();
  }
}
