// A push service on loopback, as a phone's browser's would be (FCM, Mozilla's, Apple's): it takes the hub's
// push requests for one subscription, checks them as a push service does (the VAPID token signed by the
// key the subscription was made with, its audience and expiry, `aes128gcm`), and decrypts each with the
// subscription's private key, as the phone would (RFC 8291), so the tests see exactly what reached it.

import { createECDH, createDecipheriv, createPublicKey, hkdfSync, randomBytes, verify } from 'node:crypto';
import { createServer } from 'node:http';

const b64u = (buf) => Buffer.from(buf).toString('base64url');

/** Decrypts an `aes128gcm` body for the keys `ua` (an ECDH of prime256v1) and `auth`. */
function decrypt(body, ua, auth) {
  const salt = body.subarray(0, 16);
  const idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen);
  const sealed = body.subarray(21 + idlen);
  const shared = ua.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ua.getPublicKey(), asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const record = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
  // The last record ends with 0x02, then any padding of zeros.
  const end = record.lastIndexOf(2);
  return record.subarray(0, end);
}

/** Checks a `vapid t=..., k=...` header for `origin`: the public key it names and the contact, or throws
 * why not. */
function checkVapid(header, origin) {
  const [, token, key] = /^vapid t=([^,]+), k=(.+)$/.exec(header ?? '') ?? [];
  if (!token) throw new Error(`no VAPID authorization: ${header}`);
  const [head, claims, signature] = token.split('.');
  const raw = Buffer.from(key, 'base64url');
  const publicKey = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33, 65)) }, format: 'jwk' });
  const ok = verify('sha256', Buffer.from(`${head}.${claims}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!ok) throw new Error('the VAPID signature does not verify');
  const { aud, exp, sub } = JSON.parse(Buffer.from(claims, 'base64url'));
  if (aud !== origin) throw new Error(`the token is for ${aud}, not ${origin}`);
  if (!(exp > Date.now() / 1000 && exp < Date.now() / 1000 + 24 * 3600)) throw new Error(`a bad expiry: ${exp}`);
  if (!/^(mailto:|https:)/.test(sub)) throw new Error(`a bad contact: ${sub}`);
  return { key, sub };
}

/**
 * Starts the push service. `subscription` is what the phone's browser would hand the page
 * (`{endpoint, keys: {p256dh, auth}}`); `received` lists `{at, message, sub}` in arrival order (`sub`: the
 * contact the push named); `next(n)` resolves once `n` pushes arrived.
 */
export async function startPushService() {
  const ua = createECDH('prime256v1');
  ua.generateKeys();
  const auth = randomBytes(16);
  const received = [];
  const waiters = [];
  let appKey = null;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      try {
        if (req.method !== 'POST' || req.url !== '/push/phone') throw new Error(`${req.method} ${req.url}`);
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`encoding ${req.headers['content-encoding']}`);
        if (!(Number(req.headers.ttl) > 0)) throw new Error('no TTL');
        const { key, sub } = checkVapid(req.headers.authorization, `http://127.0.0.1:${server.address().port}`);
        if (appKey && key !== appKey) throw new Error('signed with another key than the subscription was made with');
        const message = JSON.parse(decrypt(Buffer.concat(chunks), ua, auth));
        received.push({ at, message, sub });
        res.writeHead(201).end();
      } catch (e) {
        received.push({ at, error: String(e.message ?? e) });
        res.writeHead(400).end();
      }
      for (const w of [...waiters]) w();
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    received,
    /** The subscription, made with the hub's application server key (base64url). */
    subscription(applicationServerKey) {
      appKey = applicationServerKey;
      return { endpoint: `http://127.0.0.1:${server.address().port}/push/phone`, keys: { p256dh: b64u(ua.getPublicKey()), auth: b64u(auth) } };
    },
    next(count, ms = 15000) {
      return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error(`${received.length} pushes, not ${count}: ${JSON.stringify(received)}`)), ms);
        const check = () => {
          if (received.length < count) return;
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(check), 1);
          ok(received[count - 1]);
        };
        waiters.push(check);
        check();
      });
    },
    close: () => new Promise((ok) => server.close(ok)),
  };
}
