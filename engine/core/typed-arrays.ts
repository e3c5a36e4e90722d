/** Growth of the typed arrays behind the struct-of-arrays stores: a copy into a larger array. */

export function grownFloat64(old: Float64Array, capacity: number): Float64Array<ArrayBuffer> {
  const grown = new Float64Array(capacity);
  grown.set(old);
  return grown;
}

export function grownInt32(old: Int32Array, capacity: number, fill = 0): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(capacity);
  if (fill !== 0) grown.fill(fill, old.length);
  grown.set(old);
  return grown;
}

export function grownUint8(old: Uint8Array, capacity: number): Uint8Array<ArrayBuffer> {
  const grown = new Uint8Array(capacity);
  grown.set(old);
  return grown;
}

export function grownUint16(old: Uint16Array, capacity: number): Uint16Array<ArrayBuffer> {
  const grown = new Uint16Array(capacity);
  grown.set(old);
  return grown;
}
