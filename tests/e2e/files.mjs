// Files for the tests: real PNG images from an encoder small enough to read (signature, IHDR, one IDAT,
// IEND), so a test holds the exact bytes it pasted and can compare them with what the agent reads; files
// given to the page as the browser gives them (a paste, a drop); and the agent's `[FILE ...]` lines.

import { crc32, deflateSync } from 'node:zlib';

function chunk(type, data) {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * An RGB PNG of `width` x `height`. `noise` fills it with random pixels (a screenshot's size without a
 * screenshot's compression: about 3 bytes a pixel); else a gradient that compresses to little.
 */
export function png(width, height, { noise = false } = {}) {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bits per channel
  ihdr[9] = 2; // RGB
  const row = 1 + width * 3;
  const raw = Buffer.alloc(row * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const at = y * row + 1 + x * 3;
      if (noise) {
        raw[at] = Math.random() * 256;
        raw[at + 1] = Math.random() * 256;
        raw[at + 2] = Math.random() * 256;
      } else {
        raw[at] = (x * 255) / width;
        raw[at + 1] = (y * 255) / height;
        raw[at + 2] = 128;
      }
    }
  }
  const idat = deflateSync(raw, { level: noise ? 0 : 6 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

/** A PNG of about `bytes` bytes (noise, so nothing compresses it away). */
export function pngOfSize(bytes) {
  const side = Math.ceil(Math.sqrt(bytes / 3));
  return png(side, side, { noise: true });
}

/** Puts `files` ([{name, type, base64}]) on the page as a paste into the text box (`paste`) or a drop on
 * the conversation (`drop`), as the browser delivers them. */
export async function give(page, how, files) {
  await page.evaluate(({ how, files }) => {
    const data = new DataTransfer();
    for (const f of files) {
      const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
      data.items.add(new File([bytes], f.name, { type: f.type }));
    }
    if (how === 'paste') {
      document.querySelector('#input').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    } else {
      const target = document.querySelector('#conversation');
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }
  }, { how, files });
}

/** The `[FILE ...] path` lines a wait printed: [{type, size, name, path}]. */
export function fileLines(printed) {
  return [...printed.matchAll(/^\[FILE type:(\S+) size:(\d+) name:([^\]]*)\] (.+)$/gm)]
    .map(([, type, size, name, path]) => ({ type, size: Number(size), name, path }));
}

