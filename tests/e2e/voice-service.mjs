// Stand-ins for the user's voice services (a transcription and a speech server), run by the voice tests
// on port 0: they keep every request so a test can check what the hub sent, and answer as told. Also the
// WAV reader the transcription checks use.

import { createServer } from 'node:http';

/** A service that keeps every request and answers with `answer(path, body, headers)`. */
export async function startService(answer) {
  const seen = [];
  const waiting = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ path: req.url, headers: req.headers, body });
      for (const w of waiting.filter((w) => seen.length >= w.n)) w.ok();
      const [status, type, out] = answer(req.url, body, req.headers);
      res.writeHead(status, { 'Content-Type': type });
      res.end(out);
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  server.unref(); // a test that fails before closing it must not keep its process alive
  return {
    seen,
    url: `http://127.0.0.1:${server.address().port}`,
    /** Resolves once `n` requests have arrived. */
    requests: (n) => new Promise((ok) => { if (seen.length >= n) ok(); else waiting.push({ n, ok }); }),
    close: () => new Promise((ok) => { server.close(ok); server.closeAllConnections(); }),
  };
}

/** The file part of a multipart body. */
export function filePart(body, contentType) {
  const boundary = /boundary=(\S+)/.exec(contentType)[1];
  const start = body.indexOf('\r\n\r\n', body.indexOf('filename=')) + 4;
  return body.subarray(start, body.indexOf(`\r\n--${boundary}--`));
}

/** A PCM WAV's format and 16-bit samples; null for anything else. */
export function readWav(buf) {
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'RIFF' || buf.toString('latin1', 8, 12) !== 'WAVE') return null;
  let fmt = null;
  for (let at = 12; at + 8 <= buf.length;) {
    const id = buf.toString('latin1', at, at + 4);
    const size = buf.readUInt32LE(at + 4);
    const body = buf.subarray(at + 8, at + 8 + size);
    if (id === 'fmt ') fmt = { format: body.readUInt16LE(0), channels: body.readUInt16LE(2), rate: body.readUInt32LE(4), bits: body.readUInt16LE(14) };
    if (id === 'data' && fmt) {
      const samples = new Int16Array(body.buffer.slice(body.byteOffset, body.byteOffset + (body.length & ~1)));
      return { ...fmt, samples };
    }
    at += 8 + size + (size & 1);
  }
  return null;
}
