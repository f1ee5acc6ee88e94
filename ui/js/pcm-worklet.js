// The page's microphone as raw samples (an AudioWorklet): the first channel is posted to the page, which
// makes the WAV the hub hears on the device. Loaded by openMicrophone (voice.js).
//
// With `frameSeconds`, samples are gathered into blocks of that length before they are posted (their
// buffer handed over, not copied): a listener that runs for hours then wakes the page a few dozen times a
// second rather than at every 128-sample quantum (375 times a second at 48 kHz).

class PcmCapture extends AudioWorkletProcessor {
  constructor(options) {
    super();
    const seconds = options?.processorOptions?.frameSeconds ?? 0;
    this.size = seconds > 0 ? Math.max(128, Math.round(sampleRate * seconds)) : 0;
    this.block = this.size ? new Float32Array(this.size) : null;
    this.filled = 0;
  }

  process(inputs) {
    const channel = inputs[0]?.[0];
    if (!channel?.length) return true;
    if (!this.block) {
      this.port.postMessage(channel.slice(0));
      return true;
    }
    for (let at = 0; at < channel.length;) {
      const n = Math.min(channel.length - at, this.size - this.filled);
      this.block.set(channel.subarray(at, at + n), this.filled);
      this.filled += n;
      at += n;
      if (this.filled === this.size) {
        this.port.postMessage(this.block, [this.block.buffer]);
        this.block = new Float32Array(this.size);
        this.filled = 0;
      }
    }
    return true;
  }
}

registerProcessor('clawmux-pcm', PcmCapture);
