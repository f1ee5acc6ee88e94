// The page's microphone as raw samples (an AudioWorklet): each block of the first channel is posted to
// the page, which makes the WAV the hub hears on the device. Loaded by PageRecorder (voice.js).

class PcmCapture extends AudioWorkletProcessor {
  process(inputs) {
    const channel = inputs[0]?.[0];
    if (channel?.length) this.port.postMessage(channel.slice(0));
    return true;
  }
}

registerProcessor('clawmux-pcm', PcmCapture);
