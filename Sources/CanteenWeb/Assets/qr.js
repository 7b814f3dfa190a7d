// A QR code encoder of Canteen's own (ISO/IEC 18004): byte mode, error correction level M,
// versions 1 to 40 (up to 2331 bytes), the eight masks scored as the standard says, format and
// version information. Draws an SVG; nothing is downloaded or sent anywhere. The structure
// follows the standard's steps in order: encode, split into blocks with Reed–Solomon codewords,
// interleave, place, mask, add format information.
'use strict';

const CanteenQR = (() => {
  /** Level M: error-correction codewords per block and number of blocks, by version (1–40). */
  const LEVEL_M = [null, [10, 1], [16, 1], [26, 1], [18, 2], [24, 2], [16, 4], [18, 4], [22, 4], [22, 5], [26, 5],
    [30, 5], [22, 8], [22, 9], [24, 9], [24, 10], [28, 10], [28, 11], [26, 13], [26, 14], [26, 16],
    [26, 17], [28, 17], [28, 18], [28, 20], [28, 21], [28, 23], [28, 25], [28, 26], [28, 28], [28, 29],
    [28, 31], [28, 33], [28, 35], [28, 37], [28, 38], [28, 40], [28, 43], [28, 45], [28, 47], [28, 49]];
  const MAX_VERSION = LEVEL_M.length - 1;
  /** Level M's two format bits. */
  const FORMAT_BITS_M = 0;

  // MARK: - Version arithmetic

  /** Modules of a version that carry data (all but function patterns and format/version info). */
  function rawDataModules(version) {
    let result = (16 * version + 128) * version + 64;
    if (version >= 2) {
      const alignments = Math.floor(version / 7) + 2;
      result -= (25 * alignments - 10) * alignments - 55;
      if (version >= 7) result -= 36;
    }
    return result;
  }

  function dataCodewords(version) {
    const [ecPerBlock, blocks] = LEVEL_M[version];
    return Math.floor(rawDataModules(version) / 8) - ecPerBlock * blocks;
  }

  /** Centres of the alignment patterns on each axis: evenly spaced (even steps) from the last one back to the
   * second, the first always at 6; version 32 is the standard's one exception to the rule (26, not 28). */
  function alignmentPositions(version, size) {
    if (version === 1) return [];
    const count = Math.floor(version / 7) + 2;
    const step = version === 32 ? 26 : Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
    const positions = [6];
    for (let position = size - 7; positions.length < count; position -= step) positions.splice(1, 0, position);
    return positions;
  }

  // MARK: - Reed–Solomon over GF(256), polynomial x^8 + x^4 + x^3 + x^2 + 1

  function multiply(x, y) {
    let z = 0;
    for (let i = 7; i >= 0; i -= 1) {
      z = (z << 1) ^ ((z >>> 7) * 0x11d);
      z ^= ((y >>> i) & 1) * x;
    }
    return z;
  }

  /** The generator polynomial of `degree` (roots α^0 … α^(degree−1)), highest term implied. */
  function divisor(degree) {
    const result = new Array(degree).fill(0);
    result[degree - 1] = 1;
    let root = 1;
    for (let i = 0; i < degree; i += 1) {
      for (let j = 0; j < result.length; j += 1) {
        result[j] = multiply(result[j], root);
        if (j + 1 < result.length) result[j] ^= result[j + 1];
      }
      root = multiply(root, 0x02);
    }
    return result;
  }

  function remainder(data, generator) {
    const result = generator.map(() => 0);
    for (const byte of data) {
      const factor = byte ^ result.shift();
      result.push(0);
      generator.forEach((coefficient, index) => { result[index] ^= multiply(coefficient, factor); });
    }
    return result;
  }

  // MARK: - Encoding

  /** The codewords of `bytes` in the smallest version that holds them: data, padded, with error correction. */
  function codewords(bytes) {
    let version = 1;
    for (; version <= MAX_VERSION; version += 1) {
      const countBits = version <= 9 ? 8 : 16;
      if (4 + countBits + bytes.length * 8 <= dataCodewords(version) * 8) break;
    }
    if (version > MAX_VERSION) {
      throw new RangeError(`${bytes.length} bytes are too many for a QR code (at most 2331 at level M)`);
    }
    const capacity = dataCodewords(version) * 8;
    const bits = [];
    const append = (value, length) => { for (let i = length - 1; i >= 0; i -= 1) bits.push((value >>> i) & 1); };
    append(0b0100, 4);
    append(bytes.length, version <= 9 ? 8 : 16);
    bytes.forEach((byte) => append(byte, 8));
    append(0, Math.min(4, capacity - bits.length));
    append(0, (8 - (bits.length % 8)) % 8);
    for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) append(pad, 8);
    const data = [];
    for (let i = 0; i < bits.length; i += 8) {
      data.push(bits.slice(i, i + 8).reduce((byte, bit) => (byte << 1) | bit, 0));
    }

    // Split into blocks (the short ones first), each with its error-correction codewords, then interleave.
    const [ecLength, blockCount] = LEVEL_M[version];
    const raw = Math.floor(rawDataModules(version) / 8);
    const shortBlocks = blockCount - (raw % blockCount);
    const shortLength = Math.floor(raw / blockCount);
    const generator = divisor(ecLength);
    const blocks = [];
    for (let i = 0, offset = 0; i < blockCount; i += 1) {
      const length = shortLength - ecLength + (i < shortBlocks ? 0 : 1);
      const block = data.slice(offset, offset + length);
      offset += length;
      const ec = remainder(block, generator);
      if (i < shortBlocks) block.push(0);
      blocks.push(block.concat(ec));
    }
    const result = [];
    for (let i = 0; i < blocks[0].length; i += 1) {
      blocks.forEach((block, j) => {
        if (i !== shortLength - ecLength || j >= shortBlocks) result.push(block[i]);
      });
    }
    return { version, codewords: result };
  }

  // MARK: - The matrix

  class Matrix {
    constructor(version) {
      this.version = version;
      this.size = version * 4 + 17;
      this.modules = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
      this.reserved = Array.from({ length: this.size }, () => new Array(this.size).fill(false));
    }

    set(x, y, dark) {
      this.modules[y][x] = dark;
      this.reserved[y][x] = true;
    }

    drawFunctionPatterns() {
      const size = this.size;
      for (let i = 0; i < size; i += 1) {
        this.set(6, i, i % 2 === 0);
        this.set(i, 6, i % 2 === 0);
      }
      for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
        for (let dy = -4; dy <= 4; dy += 1) {
          for (let dx = -4; dx <= 4; dx += 1) {
            const distance = Math.max(Math.abs(dx), Math.abs(dy));
            const x = cx + dx;
            const y = cy + dy;
            if (x >= 0 && x < size && y >= 0 && y < size) this.set(x, y, distance !== 2 && distance !== 4);
          }
        }
      }
      const positions = alignmentPositions(this.version, size);
      const last = positions.length - 1;
      positions.forEach((cx, i) => positions.forEach((cy, j) => {
        if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
        for (let dy = -2; dy <= 2; dy += 1) {
          for (let dx = -2; dx <= 2; dx += 1) this.set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
        }
      }));
      this.drawFormat(0);
      this.drawVersion();
    }

    /** The 15 format bits (level and mask, BCH-protected, XOR 0x5412) in both their places. */
    drawFormat(mask) {
      const data = (FORMAT_BITS_M << 3) | mask;
      let rest = data;
      for (let i = 0; i < 10; i += 1) rest = (rest << 1) ^ ((rest >>> 9) * 0x537);
      const bits = ((data << 10) | rest) ^ 0x5412;
      const bit = (i) => ((bits >>> i) & 1) !== 0;
      const size = this.size;
      for (let i = 0; i <= 5; i += 1) this.set(8, i, bit(i));
      this.set(8, 7, bit(6));
      this.set(8, 8, bit(7));
      this.set(7, 8, bit(8));
      for (let i = 9; i < 15; i += 1) this.set(14 - i, 8, bit(i));
      for (let i = 0; i < 8; i += 1) this.set(size - 1 - i, 8, bit(i));
      for (let i = 8; i < 15; i += 1) this.set(8, size - 15 + i, bit(i));
      this.set(8, size - 8, true);
    }

    /** The 18 version bits (versions 7 and up, BCH-protected) in both their places. */
    drawVersion() {
      if (this.version < 7) return;
      let rest = this.version;
      for (let i = 0; i < 12; i += 1) rest = (rest << 1) ^ ((rest >>> 11) * 0x1f25);
      const bits = (this.version << 12) | rest;
      for (let i = 0; i < 18; i += 1) {
        const dark = ((bits >>> i) & 1) !== 0;
        const a = this.size - 11 + (i % 3);
        const b = Math.floor(i / 3);
        this.set(a, b, dark);
        this.set(b, a, dark);
      }
    }

    /** Places the codewords in the two-column zigzag, bottom right first, around the reserved modules. */
    drawCodewords(data) {
      const size = this.size;
      let i = 0;
      for (let right = size - 1; right >= 1; right -= 2) {
        if (right === 6) right = 5;
        for (let step = 0; step < size; step += 1) {
          for (let j = 0; j < 2; j += 1) {
            const x = right - j;
            const upward = ((right + 1) & 2) === 0;
            const y = upward ? size - 1 - step : step;
            if (!this.reserved[y][x] && i < data.length * 8) {
              this.modules[y][x] = ((data[i >>> 3] >>> (7 - (i & 7))) & 1) !== 0;
              i += 1;
            }
          }
        }
      }
    }

    applyMask(mask) {
      const rules = [
        (x, y) => (x + y) % 2 === 0,
        (x, y) => y % 2 === 0,
        (x) => x % 3 === 0,
        (x, y) => (x + y) % 3 === 0,
        (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
        (x, y) => ((x * y) % 2) + ((x * y) % 3) === 0,
        (x, y) => (((x * y) % 2) + ((x * y) % 3)) % 2 === 0,
        (x, y) => (((x + y) % 2) + ((x * y) % 3)) % 2 === 0,
      ];
      for (let y = 0; y < this.size; y += 1) {
        for (let x = 0; x < this.size; x += 1) {
          if (!this.reserved[y][x] && rules[mask](x, y)) this.modules[y][x] = !this.modules[y][x];
        }
      }
    }

    /** The standard's penalty: runs, 2×2 blocks, finder-like patterns, dark/light balance. */
    penalty() {
      const size = this.size;
      let score = 0;
      const line = (get) => {
        let runColor = false;
        let run = 0;
        const history = [0, 0, 0, 0, 0, 0, 0];
        const push = (length) => {
          if (history[0] === 0) length += size;
          history.pop();
          history.unshift(length);
        };
        const patterns = () => {
          const n = history[1];
          const core = n > 0 && history[2] === n && history[3] === n * 3 && history[4] === n && history[5] === n;
          return (core && history[0] >= n * 4 && history[6] >= n ? 1 : 0)
            + (core && history[6] >= n * 4 && history[0] >= n ? 1 : 0);
        };
        for (let i = 0; i < size; i += 1) {
          if (get(i) === runColor) {
            run += 1;
            if (run === 5) score += 3;
            else if (run > 5) score += 1;
          } else {
            push(run);
            if (!runColor) score += patterns() * 40;
            runColor = get(i);
            run = 1;
          }
        }
        if (runColor) {
          push(run);
          run = 0;
        }
        push(run + size);
        score += patterns() * 40;
      };
      for (let y = 0; y < size; y += 1) line((x) => this.modules[y][x]);
      for (let x = 0; x < size; x += 1) line((y) => this.modules[y][x]);
      let dark = 0;
      for (let y = 0; y < size; y += 1) {
        for (let x = 0; x < size; x += 1) {
          if (this.modules[y][x]) dark += 1;
          if (y < size - 1 && x < size - 1) {
            const color = this.modules[y][x];
            if (color === this.modules[y][x + 1] && color === this.modules[y + 1][x]
              && color === this.modules[y + 1][x + 1]) score += 3;
          }
        }
      }
      const total = size * size;
      score += (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
      return score;
    }
  }

  /**
   * The modules (rows of booleans, true dark) of the QR code of `text` (UTF-8), with the mask of the lowest
   * penalty, or `options.mask` (0–7) when given (for tests that exercise every mask); `penalty` is its score.
   */
  function encode(text, options = {}) {
    if (typeof text !== 'string') throw new TypeError('the text of a QR code must be a string');
    const { mask: chosen = null } = options;
    if (chosen !== null && !(Number.isInteger(chosen) && chosen >= 0 && chosen <= 7)) {
      throw new RangeError(`mask must be 0 to 7, not ${chosen}`);
    }
    const bytes = Array.from(new TextEncoder().encode(text));
    const { version, codewords: data } = codewords(bytes);
    let best = null;
    for (let mask = 0; mask < 8; mask += 1) {
      if (chosen !== null && mask !== chosen) continue;
      const matrix = new Matrix(version);
      matrix.drawFunctionPatterns();
      matrix.drawCodewords(data);
      matrix.applyMask(mask);
      matrix.drawFormat(mask);
      const score = matrix.penalty();
      if (!best || score < best.score) best = { score, mask, matrix };
    }
    return { version, mask: best.mask, penalty: best.score, size: best.matrix.size, modules: best.matrix.modules };
  }

  /**
   * An `<svg>` of the QR code of `text`: black on white, a quiet zone of four modules, at most `pixels` wide
   * (a whole number of pixels per module, so that no module is blurred or narrower than its neighbours),
   * carrying `data-qr-url` with exactly the text it encodes.
   * `options.label` gives it an accessible name (`role="img"`); without one it is hidden from assistive
   * technology, for a container that names it. `options.mask` is passed to `encode`.
   */
  function svg(text, pixels = 264, options = {}) {
    const { label = null, mask = null } = options;
    const { size, modules } = encode(text, { mask });
    const border = 4;
    const ns = 'http://www.w3.org/2000/svg';
    const element = document.createElementNS(ns, 'svg');
    const extent = size + border * 2;
    const width = Math.max(1, Math.floor(pixels / extent)) * extent;
    element.setAttribute('viewBox', `0 0 ${extent} ${extent}`);
    element.setAttribute('width', String(width));
    element.setAttribute('height', String(width));
    element.setAttribute('shape-rendering', 'crispEdges');
    element.setAttribute('focusable', 'false');
    element.setAttribute('data-qr-url', text);
    if (label) {
      element.setAttribute('role', 'img');
      element.setAttribute('aria-label', label);
    } else {
      element.setAttribute('aria-hidden', 'true');
    }
    const background = document.createElementNS(ns, 'rect');
    background.setAttribute('width', String(extent));
    background.setAttribute('height', String(extent));
    background.setAttribute('fill', '#ffffff');
    element.append(background);
    let d = '';
    modules.forEach((row, y) => row.forEach((dark, x) => {
      if (dark) d += `M${x + border},${y + border}h1v1h-1z`;
    }));
    const path = document.createElementNS(ns, 'path');
    path.setAttribute('d', d);
    path.setAttribute('fill', '#000000');
    element.append(path);
    return element;
  }

  return { encode, svg };
})();
