import crypto from 'node:crypto';
import type { RequestHeaders } from '../http/response.ts';

/** Every key starts with this, so a leaked key is recognisable (secret scanners, log redaction). */
export const KEY_PREFIX = 'hcas_live_';
const KEY_BODY_LENGTH = 32;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_PATTERN = /^hcas_live_[0-9A-Za-z]{32}$/;
/** Anything that looks like a key, wherever it appears in text that is about to be logged. */
const KEY_ANYWHERE = /hcas_live_[0-9A-Za-z]*/g;

/**
 * A new API key: the prefix and 32 base62 characters from the system CSPRNG, about 190 bits. Bytes of 248
 * or more are skipped so every character is equally likely (248 = 4 x 62).
 */
export function generateKey(): string {
  let body = '';
  while (body.length < KEY_BODY_LENGTH) {
    for (const byte of crypto.randomBytes(48)) {
      if (byte < 248 && body.length < KEY_BODY_LENGTH) body += BASE62[byte % 62];
    }
  }
  return `${KEY_PREFIX}${body}`;
}

/** True when `text` has the shape of a key (it may still be unknown or revoked). */
export function isWellFormedKey(text: string): boolean {
  return KEY_PATTERN.test(text);
}

/**
 * What the state stores instead of the key. A plain SHA-256 is enough here, unlike for passwords: a key
 * carries about 190 random bits, so no dictionary or brute-force search over hashes can find one, and a
 * fast hash lets every request look its key up by hash (a slow KDF such as scrypt would cost milliseconds
 * per request and need a salt, which would rule out the indexed lookup).
 */
export function hashKey(key: string): string {
  // crypto.hash (Node 20.12+) is the one-shot form, about three times faster than a Hash object.
  return typeof crypto.hash === 'function' ? crypto.hash('sha256', key, 'hex') : crypto.createHash('sha256').update(key).digest('hex');
}

/** The last 4 characters: enough for a person to tell keys apart in `hcas keys list`, useless to an attacker. */
export function keyHint(key: string): string {
  return key.slice(-4);
}

/** A percent-escape (`%5F`), as a URL carries one. */
const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;
/** Rounds of percent-decoding: a key encoded twice (`%255F`) is still the key to anyone reading the log. */
const DECODE_ROUNDS = 3;

/**
 * Replaces anything shaped like a key in text bound for a log. A URL may carry a key percent-encoded
 * (`hcas%5Flive%5F...`): text with escapes is decoded first (up to three times), and when the decoded form
 * holds a key, that form is what is logged, redacted. Other text is logged as it came.
 */
export function redactKeys(text: string): string {
  // Most text (every request's path goes through here) has neither: two plain searches, no regular expression.
  if (!text.includes('%')) return text.includes(KEY_PREFIX) ? text.replace(KEY_ANYWHERE, `${KEY_PREFIX}[redacted]`) : text;
  if (PERCENT_ESCAPE.test(text)) {
    let decoded = text;
    for (let round = 0; round < DECODE_ROUNDS && PERCENT_ESCAPE.test(decoded); round++) decoded = percentDecoded(decoded);
    if (decoded.includes(KEY_PREFIX)) return decoded.replace(KEY_ANYWHERE, `${KEY_PREFIX}[redacted]`);
  }
  return text.includes(KEY_PREFIX) ? text.replace(KEY_ANYWHERE, `${KEY_PREFIX}[redacted]`) : text;
}

/** Percent-decodes as UTF-8 where the text allows it, else byte by byte (a malformed escape never throws). */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
}

/** What the credential headers of a request say. */
export type Credentials = { kind: 'none' } | { kind: 'key'; key: string } | { kind: 'conflicting' } | { kind: 'malformed'; header: string };

/**
 * Reads `X-API-Key` and `Authorization: Bearer`. Both may be sent if they carry the same key; different
 * keys are a conflict rather than a silent choice of one, so a client never runs on a key it did not mean.
 */
export function readCredentials(headers: RequestHeaders): Readonly<Credentials> {
  const apiKey = headers['x-api-key'];
  const authorization = headers.authorization;
  // Under load most requests carry the credentials of the one before (a client's connections, a busy caller):
  // their reading is kept, and with it the key string the key cache saw last, which it then knows by identity.
  if (apiKey === lastApiKey && authorization === lastAuthorization) return lastCredentials;
  lastCredentials = credentialsOf(apiKey, authorization);
  lastApiKey = apiKey;
  lastAuthorization = authorization;
  return lastCredentials;
}

let lastApiKey: RequestHeaders[string] | null = null;
let lastAuthorization: RequestHeaders[string] | null = null;
let lastCredentials: Readonly<Credentials> = { kind: 'none' };

function credentialsOf(apiKey: RequestHeaders[string], authorization: RequestHeaders[string]): Credentials {
  if (apiKey === undefined && authorization === undefined) return { kind: 'none' };
  let fromHeader: string | undefined;
  if (apiKey !== undefined) {
    if (typeof apiKey !== 'string' || !isWellFormedKey(apiKey.trim())) return { kind: 'malformed', header: 'X-API-Key' };
    fromHeader = apiKey.trim();
  }
  let fromBearer: string | undefined;
  if (authorization !== undefined) {
    const match = typeof authorization === 'string' ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization) : null;
    if (!match || !isWellFormedKey(match[1])) {
      // A well-formed X-API-Key next to some other Authorization scheme (a proxy's Basic auth) is not a conflict.
      if (fromHeader !== undefined && !/^Bearer\b/i.test(String(authorization))) return { kind: 'key', key: fromHeader };
      return { kind: 'malformed', header: 'Authorization' };
    }
    fromBearer = match[1];
  }
  if (fromHeader !== undefined && fromBearer !== undefined && fromHeader !== fromBearer) return { kind: 'conflicting' };
  return { kind: 'key', key: (fromHeader ?? fromBearer)! };
}
