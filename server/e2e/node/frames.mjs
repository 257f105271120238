// frames.mjs builds and checks raw AMQP 0-9-1 frames (spec section 4.2.3:
// type octet, channel short, size long, payload, frame-end 0xCE), for the
// checks that look beneath the client library.

const frameEnd = 0xce;

// frameSizes splits bytes into whole frames and returns each frame's full
// size, or a string saying why the bytes are not whole frames.
export function frameSizes(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sizes = [];
  let at = 0;
  while (at < bytes.length) {
    if (bytes.length - at < 7) return `${bytes.length - at} bytes left: a split frame header`;
    const size = 7 + view.getUint32(at + 3) + 1;
    if (at + size > bytes.length) return `frame of ${size} bytes at offset ${at} runs past the message's ${bytes.length} bytes`;
    if (bytes[at + size - 1] !== frameEnd) return `frame at offset ${at} does not end with 0xCE`;
    sizes.push(size);
    at += size;
  }
  return sizes;
}

// contentFrames returns basic.publish (class 60, method 40), its content
// header (no properties) and body frames of at most frameMax bytes each.
export function contentFrames(channel, exchange, routingKey, body, frameMax) {
  const enc = new TextEncoder();
  const ex = enc.encode(exchange);
  const key = enc.encode(routingKey);
  const method = new Uint8Array(4 + 2 + 1 + ex.length + 1 + key.length + 1);
  const mv = new DataView(method.buffer);
  mv.setUint16(0, 60);
  mv.setUint16(2, 40);
  let i = 6; // reserved-1 (short) stays 0
  method[i++] = ex.length;
  method.set(ex, i);
  i += ex.length;
  method[i++] = key.length;
  method.set(key, i);
  i += key.length;
  method[i] = 0; // mandatory, immediate
  const header = new Uint8Array(2 + 2 + 8 + 2);
  const hv = new DataView(header.buffer);
  hv.setUint16(0, 60);
  hv.setBigUint64(4, BigInt(body.length)); // weight (short) stays 0; flags stay 0
  const frames = [frame(1, channel, method), frame(2, channel, header)];
  for (let at = 0; at < body.length; at += frameMax - 8) frames.push(frame(3, channel, body.subarray(at, at + frameMax - 8)));
  const out = new Uint8Array(frames.reduce((n, f) => n + f.length, 0));
  let at = 0;
  for (const f of frames) {
    out.set(f, at);
    at += f.length;
  }
  return out;
}

function frame(type, channel, payload) {
  const f = new Uint8Array(7 + payload.length + 1);
  const v = new DataView(f.buffer);
  f[0] = type;
  v.setUint16(1, channel);
  v.setUint32(3, payload.length);
  f.set(payload, 7);
  f[f.length - 1] = frameEnd;
  return f;
}

// patterned returns n bytes that differ with seed and position, so that a
// lost, repeated or reordered body frame shows up as a mismatch.
export function patterned(n, seed) {
  const out = new Uint8Array(n);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}
