// UTF-8 to a string the way Java's `new String(bytes, UTF_8)` (what
// StringDeserializer calls) replaces malformed input, which is not quite
// the WHATWG way Buffer.toString follows: Java replaces an encoded surrogate
// (ED A0-BF xx) with one U+FFFD where WHATWG writes three, and a truncated
// or broken 3- or 4-byte sequence with one U+FFFD for the part it consumed.
// Well-formed input decodes the same either way, so this runs only when
// Buffer's result holds a U+FFFD (malformed input, or a real U+FFFD).

const REPLACEMENT = 0xfffd

const isContinuation = (b: number) => (b & 0xc0) === 0x80

/** A 3-byte lead and its second byte that cannot start a valid sequence. */
const malformed3Second = (b1: number, b2: number) => (b1 === 0xe0 && (b2 & 0xe0) === 0x80) || !isContinuation(b2)

/** A 4-byte lead and its second byte that cannot start a valid sequence. */
const malformed4Second = (b1: number, b2: number) =>
  (b1 === 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (b1 === 0xf4 && (b2 & 0xf0) !== 0x80) || !isContinuation(b2)

export function decodeUtf8AsJava(bytes: Uint8Array): string {
  const fast = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8')
  if (!fast.includes('\uFFFD')) return fast
  const units: number[] = []
  const n = bytes.length
  let i = 0
  while (i < n) {
    const b1 = bytes[i]
    if (b1 < 0x80) {
      units.push(b1)
      i += 1
    } else if (b1 >= 0xc2 && b1 <= 0xdf) {
      if (i + 1 < n && isContinuation(bytes[i + 1])) {
        units.push(((b1 & 0x1f) << 6) | (bytes[i + 1] & 0x3f))
        i += 2
      } else {
        units.push(REPLACEMENT)
        i += 1
      }
    } else if ((b1 & 0xf0) === 0xe0) {
      if (i + 2 < n) {
        const b2 = bytes[i + 1]
        const b3 = bytes[i + 2]
        if (malformed3Second(b1, b2) || !isContinuation(b3)) {
          units.push(REPLACEMENT)
          i += malformed3Second(b1, b2) ? 1 : 2
        } else {
          const c = ((b1 & 0x0f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f)
          // An encoded surrogate is one malformed sequence of three bytes.
          units.push(c >= 0xd800 && c <= 0xdfff ? REPLACEMENT : c)
          i += 3
        }
      } else if (i + 1 < n && malformed3Second(b1, bytes[i + 1])) {
        units.push(REPLACEMENT)
        i += 1
      } else {
        // A valid start cut off by the end: one replacement for the rest.
        units.push(REPLACEMENT)
        break
      }
    } else if ((b1 & 0xf8) === 0xf0) {
      if (i + 3 < n) {
        const [b2, b3, b4] = [bytes[i + 1], bytes[i + 2], bytes[i + 3]]
        const cp = ((b1 & 0x07) << 18) | ((b2 & 0x3f) << 12) | ((b3 & 0x3f) << 6) | (b4 & 0x3f)
        if (!isContinuation(b2) || !isContinuation(b3) || !isContinuation(b4) || cp < 0x10000 || cp > 0x10ffff) {
          units.push(REPLACEMENT)
          i += b1 > 0xf4 || malformed4Second(b1, b2) ? 1 : !isContinuation(b3) ? 2 : 3
        } else {
          units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff))
          i += 4
        }
      } else if (b1 > 0xf4 || (i + 1 < n && malformed4Second(b1, bytes[i + 1]))) {
        units.push(REPLACEMENT)
        i += 1
      } else {
        // Cut off by the end: the lead and its second byte are one replacement;
        // a third byte that is no continuation is read again on its own.
        units.push(REPLACEMENT)
        i += 2
        if (!(i < n && !isContinuation(bytes[i]))) break
      }
    } else {
      units.push(REPLACEMENT)
      i += 1
    }
  }
  let out = ''
  for (let at = 0; at < units.length; at += 8192) out += String.fromCharCode(...units.slice(at, at + 8192))
  return out
}
