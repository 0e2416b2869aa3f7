/**
 * CBOR encoder for server → client messages (rosbridge's `compression: "cbor"`): uint8 arrays
 * become byte strings, so camera frames travel without base64. Decoded by roslib (cbor2).
 */

export function encodeCbor(value: unknown): Uint8Array {
  const out = new Writer();
  write(out, value, 0);
  return out.finish();
}

class Writer {
  #buf = new Uint8Array(1024);
  #view = new DataView(this.#buf.buffer);
  #n = 0;

  #reserve(n: number): void {
    if (this.#n + n <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.#n + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.#buf.subarray(0, this.#n));
    this.#buf = next;
    this.#view = new DataView(next.buffer);
  }

  head(major: number, length: number): void {
    this.#reserve(9);
    const m = major << 5;
    if (length < 24) this.#buf[this.#n++] = m | length;
    else if (length < 0x100) {
      this.#buf[this.#n++] = m | 24;
      this.#buf[this.#n++] = length;
    } else if (length < 0x10000) {
      this.#buf[this.#n++] = m | 25;
      this.#view.setUint16(this.#n, length);
      this.#n += 2;
    } else if (length < 0x100000000) {
      this.#buf[this.#n++] = m | 26;
      this.#view.setUint32(this.#n, length);
      this.#n += 4;
    } else {
      this.#buf[this.#n++] = m | 27;
      this.#view.setBigUint64(this.#n, BigInt(length));
      this.#n += 8;
    }
  }

  bytes(b: Uint8Array): void {
    this.#reserve(b.length);
    this.#buf.set(b, this.#n);
    this.#n += b.length;
  }

  float64(x: number): void {
    this.#reserve(9);
    this.#buf[this.#n++] = 0xfb;
    this.#view.setFloat64(this.#n, x);
    this.#n += 8;
  }

  byte(b: number): void {
    this.#reserve(1);
    this.#buf[this.#n++] = b;
  }

  finish(): Uint8Array {
    return this.#buf.slice(0, this.#n);
  }
}

const text = new TextEncoder();

function write(out: Writer, v: unknown, depth: number): void {
  if (depth > 64) throw new Error('CBOR: value nested too deeply');
  if (v === null || v === undefined) out.byte(0xf6);
  else if (v === false) out.byte(0xf4);
  else if (v === true) out.byte(0xf5);
  else if (typeof v === 'number') {
    if (Number.isSafeInteger(v)) v >= 0 ? out.head(0, v) : out.head(1, -1 - v);
    else out.float64(v);
  } else if (typeof v === 'string') {
    const b = text.encode(v);
    out.head(3, b.length);
    out.bytes(b);
  } else if (v instanceof Uint8Array) {
    out.head(2, v.length);
    out.bytes(v);
  } else if (Array.isArray(v) || ArrayBuffer.isView(v)) {
    const items = Array.isArray(v) ? v : Array.from(v as unknown as ArrayLike<number>);
    out.head(4, items.length);
    for (const item of items) write(out, item, depth + 1);
  } else if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    out.head(5, entries.length);
    for (const [k, x] of entries) {
      write(out, k, depth + 1);
      write(out, x, depth + 1);
    }
  } else throw new Error(`CBOR: cannot encode a ${typeof v}`);
}
