// The voice layer: speaking (assistant messages read aloud) and listening (push-to-talk). Per
// docs/STATE-MACHINE.md these are states of the UI alone: they never reach the hub's agent state or
// the sidebar; their indicator sits beside the microphone.
//
// Speaking: a queue, so two quick messages never talk over each other; stop and skip; markdown and code are
// not read out as symbols. The engine is the one the voice settings name: the device's own voice (the
// default; each agent in a variant of its own), the user's speech service, or the webview's
// speechSynthesis. The hub's audio is asked for a few sentences at a time, the next while one plays, so a
// long answer starts as soon as a short one would. While the device's voice is not downloaded yet the
// webview's voices speak, and the page offers to get it. Sending never waits on any of it.
//
// Listening: hold Space (outside the text box) or click the mic; Escape cancels. The recording goes to the
// hub, which transcribes it and stores a voice message. A recording that fails is kept on screen with a
// Retry button and sent again under the same id, so it is stored once.

import { variantOf, voiceOf } from './agent-voices.js';
import { Code, TextToSpeech } from './names.js';

/** The longest piece of text the hub is asked to speak at once (sentences are not cut). */
const PIECE = 220;

/** `words` as pieces of whole sentences: the first sentence alone (the sooner it is heard), then pieces of
 * at most about PIECE characters. */
export function pieces(words) {
  const out = [];
  for (const sentence of words.split(/(?<=[.!?])\s+/).filter((p) => p.trim())) {
    const last = out.length - 1;
    if (last >= 1 && out[last].length + sentence.length < PIECE) out[last] += ` ${sentence}`;
    else out.push(sentence);
  }
  return out;
}

/** What a markdown message sounds like: words, not symbols. */
export function speakable(markdown) {
  return markdown
    .replace(/```[\s\S]*?(```|$)/g, ' (code block) ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, ' ')
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+\.)\s+/gm, '')
    .replace(/(\*\*|__|\*|_|~~)(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/^\s*([-*_]\s*){3,}$/gm, ' ')
    .replace(/\|/g, ' ')
    .replace(/https?:\/\/\S+/g, 'a link')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Reads texts aloud one after another. */
export class Speaker {
  /** `onMissingVoice()` is told once when the device's voice is wanted and not downloaded yet. */
  constructor({ backend, onChange, onProblem, onMissingVoice = () => {} }) {
    this.backend = backend;
    this.onChange = onChange;
    this.onProblem = onProblem;
    this.onMissingVoice = onMissingVoice;
    this.queue = [];
    this.current = null; // { stop() }
    this.engine = TextToSpeech.DEVICE; // as the voice settings say
    this.voiceMissing = false; // the device's voice is not downloaded: the webview's speak meanwhile
    this.offered = false; // the page offered to get it
  }

  /** The engine the settings name (`TextToSpeech`); the device's voice is asked for again. */
  use(engine) {
    this.engine = engine ?? TextToSpeech.DEVICE;
    this.voiceMissing = false;
  }

  get speaking() {
    return this.current !== null;
  }

  /** Reads `text` after what is queued, in `agent`'s voice (none: the app's own). */
  enqueue(text, agent = null) {
    const words = speakable(text);
    if (!words) return;
    this.queue.push({ words, agent });
    if (!this.current) this.next();
  }

  /** Stops the current text and drops the queue. */
  stop() {
    this.queue = [];
    this.current?.stop();
  }

  /** Stops the current text; the next one starts. */
  skip() {
    this.current?.stop();
  }

  next() {
    const item = this.queue.shift();
    if (item === undefined) {
      this.current = null;
      this.onChange();
      return;
    }
    const done = () => {
      if (this.current === playing) this.next();
    };
    const { words, agent } = item;
    // The hub says which of its engines speaks (the settings are read there each time); the webview's
    // voices speak when chosen, or while the device's voice is missing, if the page has any.
    const webview = this.hasVoices() && (this.engine === TextToSpeech.WINDOW || (this.engine === TextToSpeech.DEVICE && this.voiceMissing));
    const playing = webview ? this.browserVoice(words, agent, done) : this.hubVoice(words, agent, done);
    this.current = playing;
    this.onChange();
  }

  hasVoices() {
    return 'speechSynthesis' in window && speechSynthesis.getVoices().length > 0;
  }

  browserVoice(words, agent, done) {
    if (!this.hasVoices()) {
      // With the device's voice missing, the page's offer to get it says so already.
      if (!this.voiceMissing) this.onProblem('This window has no voices to read aloud with: choose the device\'s voice in the voice settings.');
      this.queue = [];
      setTimeout(done);
      return { stop: () => {} };
    }
    const u = new SpeechSynthesisUtterance(words);
    const { voice, pitch } = voiceOf(agent, speechSynthesis.getVoices());
    if (voice) u.voice = voice;
    u.pitch = pitch;
    u.onend = done;
    u.onerror = (e) => {
      if (e.error !== 'interrupted' && e.error !== 'canceled') this.onProblem(`Could not speak: ${e.error}`);
      done();
    };
    speechSynthesis.speak(u);
    return { stop: () => speechSynthesis.cancel() };
  }

  /** Speech from the hub (the device's voice, in the agent's variant, or the speech service), a few
   * sentences at a time, the next asked for while one plays; played with Web Audio (the Linux webview
   * refuses to play blob: and data: URLs in media elements; Web Audio plays in both it and browsers). */
  hubVoice(words, agent, done) {
    const parts = pieces(words);
    const variant = variantOf(agent); // the device's voice's; a service has its one voice
    const ask = (i) => {
      if (i >= parts.length) return null;
      const asked = this.backend.speech(parts[i], variant);
      asked.catch(() => {}); // seen when awaited
      return asked;
    };
    let source = null;
    let stopped = false;
    const handle = { stop: () => { stopped = true; source?.stop(); done(); } };
    const play = async () => {
      let next = ask(0);
      for (let i = 0; next; i += 1) {
        let bytes;
        try {
          bytes = await next;
        } catch (e) {
          if (stopped) return;
          if (i === 0 && e.code === Code.VOICE_NOT_DOWNLOADED) {
            // The device's voice is not here yet: the webview's speak meanwhile, and the page offers it.
            this.voiceMissing = true;
            if (!this.offered) this.onMissingVoice();
            this.offered = true;
            const instead = this.browserVoice(words, agent, done);
            handle.stop = instead.stop;
            return;
          }
          this.onProblem(e.code === Code.VOICE_NOT_CONFIGURED
            ? 'No voice to read aloud with here: set a speech service in the voice settings.'
            : `Could not speak: ${e.message}`);
          this.queue = [];
          done();
          return;
        }
        if (stopped) return;
        next = ask(i + 1);
        const played = await this.playAudio(bytes, (playing) => {
          if (stopped) return false;
          source = playing;
          return true;
        });
        if (stopped) return;
        if (!played) break;
      }
      done();
    };
    play();
    return { stop: () => handle.stop() };
  }

  /** Plays audio `bytes` with Web Audio, once `starting(source)` agrees; resolves when it has ended (false
   * when the audio could not be played, or was not started). */
  async playAudio(bytes, starting) {
    this.audio ??= new AudioContext();
    let buffer;
    try {
      buffer = await this.audio.decodeAudioData(bytes);
    } catch (e) {
      this.onProblem(`The voice sent audio this window cannot play (${e.message || e.name}).`);
      return false;
    }
    await this.audio.resume().catch(() => {});
    const source = this.audio.createBufferSource();
    source.buffer = buffer;
    source.connect(this.audio.destination);
    if (!starting(source)) return false;
    const ended = new Promise((resolve) => { source.onended = resolve; });
    source.start();
    await ended;
    return true;
  }
}

/** 16-bit mono PCM WAV of `chunks` (Float32Arrays) at `rate`. */
export function wavOf(chunks, rate) {
  const count = chunks.reduce((n, c) => n + c.length, 0);
  const out = new DataView(new ArrayBuffer(44 + count * 2));
  const text = (at, s) => [...s].forEach((ch, i) => out.setUint8(at + i, ch.charCodeAt(0)));
  text(0, 'RIFF');
  out.setUint32(4, 36 + count * 2, true);
  text(8, 'WAVEfmt ');
  out.setUint32(16, 16, true);
  out.setUint16(20, 1, true);
  out.setUint16(22, 1, true);
  out.setUint32(24, rate, true);
  out.setUint32(28, rate * 2, true);
  out.setUint16(32, 2, true);
  out.setUint16(34, 16, true);
  text(36, 'data');
  out.setUint32(40, count * 2, true);
  let at = 44;
  for (const c of chunks) {
    for (const x of c) {
      out.setInt16(at, Math.max(-1, Math.min(1, x)) * 0x7fff, true);
      at += 2;
    }
  }
  return new Blob([out.buffer], { type: 'audio/wav' });
}

/** The microphone's stream, or why not (`verb` and `then` finish what a refusal says). */
async function askMicrophone(audio, verb, then) {
  if (!navigator.mediaDevices?.getUserMedia) throw new Error(`This window cannot ${verb}: no microphone access here.`);
  try {
    return await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, ...audio } });
  } catch (e) {
    throw new Error(e.name === 'NotAllowedError'
      ? `The microphone was not allowed: allow it for this page ${then}.`
      : `No microphone: ${e.message || e.name}`);
  }
}

/**
 * The page's microphone as raw samples: `onSamples(block)` gets each block of the first channel, as it
 * comes or, with `frameSeconds`, gathered into blocks that long. Where the browser hands a track's own
 * frames over (`MediaStreamTrackProcessor`, Chromium) and blocks are asked for, they are read from it: no
 * audio graph runs, nothing plays silence to the speakers, which is what listening for hours costs
 * least with. Elsewhere an AudioWorklet takes them (`latencyHint` is its AudioContext's). `verb` and
 * `then` finish what a refusal says ("cannot record", "allow it for this page and try again"). Resolves
 * once samples can flow, with the device's rate and `close()`.
 */
export async function openMicrophone(onSamples, { audio = {}, verb = 'record', then = 'and try again', frameSeconds = 0, latencyHint } = {}) {
  if (frameSeconds > 0 && window.MediaStreamTrackProcessor) {
    return openTrackFrames(await askMicrophone(audio, verb, then), onSamples, frameSeconds);
  }
  if (!window.AudioWorkletNode) throw new Error(`This window cannot ${verb}: no microphone access here.`);
  const stream = await askMicrophone(audio, verb, then);
  const context = new AudioContext(latencyHint ? { latencyHint } : undefined);
  let node = null;
  const close = () => {
    if (node) {
      node.port.onmessage = null;
      node.disconnect();
    }
    for (const t of stream.getTracks()) t.stop();
    return context.close();
  };
  try {
    await context.audioWorklet.addModule(new URL('./pcm-worklet.js', import.meta.url));
    node = new AudioWorkletNode(context, 'clawmux-pcm', { processorOptions: { frameSeconds } });
    node.port.onmessage = (e) => onSamples(e.data);
    context.createMediaStreamSource(stream).connect(node);
    // Pulled by the output (the node writes nothing to it: silence), so it runs.
    node.connect(context.destination);
    await context.resume();
  } catch (e) {
    await close().catch(() => {});
    throw e;
  }
  return { rate: context.sampleRate, close };
}

/** The track of `stream` read frame by frame, its samples handed to `onSamples` in blocks of
 * `frameSeconds`. */
async function openTrackFrames(stream, onSamples, frameSeconds) {
  const [track] = stream.getAudioTracks();
  const reader = new window.MediaStreamTrackProcessor({ track }).readable.getReader();
  let open = true;
  const close = async () => {
    open = false;
    for (const t of stream.getTracks()) t.stop();
    await reader.cancel().catch(() => {});
  };
  const first = await reader.read();
  if (first.done) {
    await close();
    throw new Error('No microphone: its track ended at once.');
  }
  const rate = first.value.sampleRate;
  const size = Math.max(128, Math.round(rate * frameSeconds));
  let block = new Float32Array(size);
  let filled = 0;
  const take = (data) => {
    const samples = new Float32Array(data.numberOfFrames);
    data.copyTo(samples, { planeIndex: 0, format: 'f32-planar' });
    data.close();
    for (let at = 0; at < samples.length;) {
      const n = Math.min(samples.length - at, size - filled);
      block.set(samples.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === size) {
        onSamples(block);
        block = new Float32Array(size);
        filled = 0;
      }
    }
  };
  take(first.value);
  (async () => {
    while (open) {
      const { value, done } = await reader.read().catch(() => ({ done: true }));
      if (done) return;
      if (open) take(value);
      else value.close();
    }
  })();
  return { rate, close };
}

/**
 * Push-to-talk in a browser: the microphone's samples, as the page hears them, made a WAV at the
 * device's rate. A WAV is what every transcriber takes, the hub's own on-device engine included (it
 * resamples to 16 kHz). `start()` resolves once samples flow: "Listening" means it.
 */
export class PageRecorder {
  async start() {
    this.chunks = [];
    let flowing;
    const first = new Promise((ok) => { flowing = ok; });
    this.microphone = await openMicrophone((block) => {
      this.chunks.push(block);
      flowing();
    });
    await first;
  }

  release() {
    return this.microphone.close();
  }

  /** Resolves with the recording (a WAV blob). */
  async stop() {
    const { rate } = this.microphone;
    await this.release();
    const samples = this.chunks.reduce((n, c) => n + c.length, 0);
    if (!samples) throw new Error('Nothing was recorded: is the microphone on?');
    return wavOf(this.chunks, rate);
  }

  async cancel() {
    await this.release();
  }
}

/**
 * Push-to-talk: records while held, then hands the clip over. Where it records is the backend's business
 * (`backend.recorder()`: the page's MediaRecorder in a browser, the app's own capture in the desktop
 * window); the listening indicator and the order of start, stop and cancel are the same for both.
 */
export class Listener {
  constructor({ backend, onChange, onRecording, onProblem }) {
    this.backend = backend;
    this.onChange = onChange;
    this.onRecording = onRecording;
    this.onProblem = onProblem;
    this.active = null; // { recorder, started }
  }

  get listening() {
    return this.active !== null;
  }

  /** Whether the microphone records yet (opening a device takes a moment; words before it are lost). */
  get ready() {
    return this.active?.ready === true;
  }

  start() {
    if (this.active) return;
    const recorder = this.backend.recorder();
    const active = { recorder, started: recorder.start() };
    this.active = active;
    this.onChange();
    active.started.then(() => {
      active.ready = true;
      this.onChange();
    }, (e) => {
      if (this.active === active) {
        this.active = null;
        this.onChange();
      }
      this.onProblem(e.message);
    });
  }

  /** Ends the recording (once it has started) and hands the clip over. */
  async stop() {
    const recorder = await this.end();
    if (!recorder) return;
    let clip;
    try {
      clip = await recorder.stop();
    } catch (e) {
      this.onProblem(e.message);
      return;
    }
    this.onRecording(clip);
  }

  /** Ends the recording and keeps nothing. */
  async cancel() {
    const recorder = await this.end();
    await recorder?.cancel();
  }

  /** Stops listening; resolves with the recorder once it has started (null if it never did: its problem
   * is on screen already). */
  async end() {
    const active = this.active;
    if (!active) return null;
    this.active = null;
    this.onChange();
    try {
      await active.started;
      return active.recorder;
    } catch {
      return null;
    }
  }
}
