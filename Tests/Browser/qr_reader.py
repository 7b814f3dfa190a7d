"""A strict reader of QR code matrices (ISO/IEC 18004, byte mode, level M), written apart from
Canteen's encoder (`qr.js`) so that the one checks the other. A camera's reader such as zbar
silently repairs a few wrong codewords; this one repairs nothing: every function pattern must be
in place, both copies of the format and version information must be valid BCH codewords that
agree, every Reed–Solomon block must have a zero syndrome, and the bit stream must be exactly
mode, count, bytes, terminator and the 0xEC/0x11 padding. Any difference raises `QRDefect`.

Tables are the standard's: error-correction codewords per block and number of blocks at level M
(Table 9), alignment pattern centres (Annex E); module counts are counted, not computed."""

from itertools import product

# Level M, by version 1–40: (error-correction codewords per block, number of blocks). ISO/IEC 18004 Table 9.
LEVEL_M = [None, (10, 1), (16, 1), (26, 1), (18, 2), (24, 2), (16, 4), (18, 4), (22, 4), (22, 5), (26, 5),
           (30, 5), (22, 8), (22, 9), (24, 9), (24, 10), (28, 10), (28, 11), (26, 13), (26, 14), (26, 16),
           (26, 17), (28, 17), (28, 18), (28, 20), (28, 21), (28, 23), (28, 25), (28, 26), (28, 28), (28, 29),
           (28, 31), (28, 33), (28, 35), (28, 37), (28, 38), (28, 40), (28, 43), (28, 45), (28, 47), (28, 49)]

# Row/column coordinates of the alignment pattern centres, by version. ISO/IEC 18004 Annex E, Table E.1.
ALIGNMENT = [None, [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46],
             [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62], [6, 26, 46, 66], [6, 26, 48, 70],
             [6, 26, 50, 74], [6, 30, 54, 78], [6, 30, 56, 82], [6, 30, 58, 86], [6, 34, 62, 90],
             [6, 28, 50, 72, 94], [6, 26, 50, 74, 98], [6, 30, 54, 78, 102], [6, 28, 54, 80, 106],
             [6, 32, 58, 84, 110], [6, 30, 58, 86, 114], [6, 34, 62, 90, 118], [6, 26, 50, 74, 98, 122],
             [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130], [6, 30, 56, 82, 108, 134],
             [6, 34, 60, 86, 112, 138], [6, 30, 58, 86, 114, 142], [6, 34, 62, 90, 118, 146],
             [6, 30, 54, 78, 102, 126, 150], [6, 24, 50, 76, 102, 128, 154], [6, 28, 54, 80, 106, 132, 158],
             [6, 32, 58, 84, 110, 136, 162], [6, 26, 54, 82, 110, 138, 166], [6, 30, 58, 86, 114, 142, 170]]

# Data mask conditions (i row, j column): where true, the module is inverted. ISO/IEC 18004 Table 10.
MASKS = [
    lambda i, j: (i + j) % 2 == 0,
    lambda i, j: i % 2 == 0,
    lambda i, j: j % 3 == 0,
    lambda i, j: (i + j) % 3 == 0,
    lambda i, j: (i // 2 + j // 3) % 2 == 0,
    lambda i, j: (i * j) % 2 + (i * j) % 3 == 0,
    lambda i, j: ((i * j) % 2 + (i * j) % 3) % 2 == 0,
    lambda i, j: ((i * j) % 3 + (i + j) % 2) % 2 == 0,
]


class QRDefect(Exception):
    """What makes a matrix not a correct QR code."""


# MARK: - GF(256) with the primitive polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D), α = 2

EXP = [0] * 512
LOG = [0] * 256
_value = 1
for _power in range(255):
    EXP[_power] = _value
    LOG[_value] = _power
    _value <<= 1
    if _value & 0x100:
        _value ^= 0x11D
for _power in range(255, 512):
    EXP[_power] = EXP[_power - 255]


def syndromes(block, count):
    """The block (highest power first) evaluated at α^0 … α^(count−1): all zero for a codeword."""
    result = []
    for i in range(count):
        value = 0
        for byte in block:
            value = (EXP[LOG[value] + i] if value else 0) ^ byte
        result.append(value)
    return result


def bch_remainder(value, generator, degree):
    """The remainder of `value` · x^0 divided by `generator` (of `degree`) over GF(2)."""
    for shift in range(value.bit_length() - degree - 1, -1, -1):
        if value >> (shift + degree) & 1:
            value ^= generator << shift
    return value


# MARK: - The symbol


def capacity(version):
    """The most bytes a byte-mode symbol of `version` holds at level M, counted from the module map."""
    function = function_modules(version)
    size = len(function)
    total = sum(1 for i in range(size) for j in range(size) if not function[i][j]) // 8
    ec, blocks = LEVEL_M[version]
    data = total - ec * blocks
    return (data * 8 - 4 - (8 if version <= 9 else 16)) // 8


def function_modules(version):
    """True where a module is a function pattern or format/version information (never data)."""
    size = 17 + 4 * version
    function = [[False] * size for _ in range(size)]

    def mark(rows, columns):
        for i, j in product(rows, columns):
            function[i][j] = True

    for top, left in [(0, 0), (0, size - 8), (size - 8, 0)]:  # finders with their separators
        mark(range(top, top + 8), range(left, left + 8))
    mark([6], range(size))  # timing
    mark(range(size), [6])
    for i, j in alignment_centres(version):
        mark(range(i - 2, i + 3), range(j - 2, j + 3))
    mark([8], list(range(9)) + list(range(size - 8, size)))  # format information and the dark module
    mark(list(range(9)) + list(range(size - 8, size)), [8])
    if version >= 7:
        mark(range(6), range(size - 11, size - 8))
        mark(range(size - 11, size - 8), range(6))
    return function


def alignment_centres(version):
    """The centres of the alignment patterns: every pair of the table's coordinates but the three at the finders."""
    centres = ALIGNMENT[version]
    corners = [(6, 6), (6, centres[-1]), (centres[-1], 6)] if centres else []
    return [(i, j) for i, j in product(centres, centres) if (i, j) not in corners]


def format_positions(size):
    """The two places of the 15 format bits, most significant first, as (row, column)."""
    first = [(8, j) for j in [0, 1, 2, 3, 4, 5, 7, 8]] + [(i, 8) for i in [7, 5, 4, 3, 2, 1, 0]]
    second = [(size - 1 - k, 8) for k in range(7)] + [(8, size - 8 + k) for k in range(8)]
    return first, second


def read(matrix):
    """Reads `matrix` (rows of booleans, true dark) strictly; returns (version, mask, the encoded bytes)."""
    size = len(matrix)
    if size < 21 or (size - 17) % 4 or any(len(row) != size for row in matrix):
        raise QRDefect(f"a {size}-module square is no QR code size")
    version = (size - 17) // 4
    if version > 40:
        raise QRDefect(f"version {version} is beyond 40")
    dark = lambda i, j: bool(matrix[i][j])  # noqa: E731

    # Finder patterns and separators: a dark ring, a light ring, a dark 3×3 core, then light around.
    for top, left in [(0, 0), (0, size - 7), (size - 7, 0)]:
        for i, j in product(range(-1, 8), range(-1, 8)):
            if 0 <= top + i < size and 0 <= left + j < size:
                ring = max(abs(i - 3), abs(j - 3))
                if dark(top + i, left + j) != (ring in (0, 1, 3)):
                    raise QRDefect(f"finder pattern module ({top + i}, {left + j}) is wrong")
    for k in range(8, size - 8):
        if dark(6, k) != (k % 2 == 0) or dark(k, 6) != (k % 2 == 0):
            raise QRDefect(f"timing pattern module {k} is wrong")
    for ci, cj in alignment_centres(version):
        for i, j in product(range(-2, 3), range(-2, 3)):
            if dark(ci + i, cj + j) != (max(abs(i), abs(j)) != 1):
                raise QRDefect(f"alignment pattern at ({ci}, {cj}) is wrong")
    if not dark(size - 8, 8):
        raise QRDefect("the dark module is light")

    # Format information: both copies the same valid BCH(15,5) codeword of level M.
    copies = [int("".join("1" if dark(i, j) else "0" for i, j in place), 2) for place in format_positions(size)]
    if copies[0] != copies[1]:
        raise QRDefect(f"the format information's copies differ: {copies[0]:015b} {copies[1]:015b}")
    unmasked = copies[0] ^ 0b101010000010010
    if bch_remainder(unmasked, 0b10100110111, 10):
        raise QRDefect(f"the format information {copies[0]:015b} is no BCH codeword")
    level, mask = unmasked >> 13, (unmasked >> 10) & 0b111
    if level != 0b00:
        raise QRDefect(f"the error correction level is {level:02b}, not M (00)")

    # Version information (7 and up): both copies the same valid BCH(18,6) codeword of this version.
    if version >= 7:
        below = sum(dark(size - 11 + k % 3, k // 3) << k for k in range(18))
        right = sum(dark(k // 3, size - 11 + k % 3) << k for k in range(18))
        if below != right:
            raise QRDefect(f"the version information's copies differ: {below:018b} {right:018b}")
        if below >> 12 != version or bch_remainder(below, 0b1111100100101, 12):
            raise QRDefect(f"the version information {below:018b} is not version {version}")

    # Data: unmask, read the two-column zigzag from the bottom right, skipping column 6.
    function = function_modules(version)
    bits = []
    right = size - 1
    upward = True
    while right > 0:
        if right == 6:
            right = 5
        rows = range(size - 1, -1, -1) if upward else range(size)
        for i in rows:
            for j in (right, right - 1):
                if not function[i][j]:
                    bits.append(dark(i, j) != MASKS[mask](i, j))
        upward = not upward
        right -= 2
    codewords = [int("".join("1" if bit else "0" for bit in bits[k:k + 8]), 2)
                 for k in range(0, len(bits) - 7, 8)]
    if any(bits[len(codewords) * 8:]):
        raise QRDefect("a remainder bit is dark once unmasked")

    # De-interleave into blocks (the shorter ones first) and check each block's syndromes.
    ec, count = LEVEL_M[version]
    total = len(codewords)
    short = count - total % count
    data_lengths = [total // count - ec + (0 if b < short else 1) for b in range(count)]
    blocks = [[] for _ in range(count)]
    position = 0
    for k in range(max(data_lengths)):
        for b in range(count):
            if k < data_lengths[b]:
                blocks[b].append(codewords[position])
                position += 1
    for k in range(ec):
        for b in range(count):
            blocks[b].append(codewords[position])
            position += 1
    for b, block in enumerate(blocks):
        if any(syndromes(block, ec)):
            raise QRDefect(f"Reed–Solomon block {b} of {count} has errors")
    data = [byte for b, block in enumerate(blocks) for byte in block[:data_lengths[b]]]

    # The bit stream: byte mode, the count, the bytes, a terminator, zero bits, then 0xEC 0x11 …
    stream = "".join(f"{byte:08b}" for byte in data)
    if stream[:4] != "0100":
        raise QRDefect(f"mode {stream[:4]} is not byte mode (0100)")
    width = 8 if version <= 9 else 16
    length = int(stream[4:4 + width], 2)
    start = 4 + width
    end = start + 8 * length
    if end > len(stream):
        raise QRDefect(f"the count {length} is more than the symbol holds")
    payload = bytes(int(stream[k:k + 8], 2) for k in range(start, end, 8))
    terminator = stream[end:end + 4]
    if terminator != "0" * len(terminator):
        raise QRDefect("the terminator is not zero")
    padded = end + len(terminator)
    padded += (8 - padded % 8) % 8
    if stream[end:padded] != "0" * (padded - end):
        raise QRDefect("the bits before the padding are not zero")
    pads = [int(stream[k:k + 8], 2) for k in range(padded, len(stream), 8)]
    if pads != [[0xEC, 0x11][k % 2] for k in range(len(pads))]:
        raise QRDefect("the padding is not 0xEC 0x11 repeated")
    if version > 1 and capacity(version - 1) >= length:
        raise QRDefect(f"{length} bytes fit in version {version - 1}: version {version} is not the smallest")
    return version, mask, payload


# MARK: - The mask penalty (ISO/IEC 18004 7.8.3.1, Table 11)


def penalty(matrix):
    """N1 runs of five or more, N2 2×2 blocks, N3 finder-like 1:1:3:1:1 runs with four light on a side
    (outside the symbol counts as light), N4 dark share away from 50 % in steps of 5 %."""
    size = len(matrix)
    score = 0
    lines = [list(row) for row in matrix] + [[matrix[i][j] for i in range(size)] for j in range(size)]
    for line in lines:
        runs = []
        for module in line:
            if runs and runs[-1][0] == module:
                runs[-1][1] += 1
            else:
                runs.append([module, 1])
        score += sum(3 + length - 5 for _, length in runs if length >= 5)
        outside = 4 * size
        runs = [[False, outside]] + runs + [[False, outside]]
        merged = []
        for colour, length in runs:  # the light outside joins a light run at either end
            if merged and merged[-1][0] == colour:
                merged[-1][1] += length
            else:
                merged.append([colour, length])
        for k in range(1, len(merged) - 5):
            colours = [colour for colour, _ in merged[k:k + 5]]
            lengths = [length for _, length in merged[k:k + 5]]
            unit = lengths[0]
            if colours != [True, False, True, False, True] or lengths != [unit, unit, 3 * unit, unit, unit]:
                continue
            before, after = merged[k - 1][1], merged[k + 5][1]
            score += 40 * ((before >= 4 * unit and after >= unit) + (after >= 4 * unit and before >= unit))
    for i, j in product(range(size - 1), range(size - 1)):
        if matrix[i][j] == matrix[i][j + 1] == matrix[i + 1][j] == matrix[i + 1][j + 1]:
            score += 3
    dark = sum(sum(1 for module in row if module) for row in matrix)
    total = size * size
    k = 0
    while not ((45 - 5 * k) * total <= 100 * dark <= (55 + 5 * k) * total):
        k += 1
    return score + 10 * k
