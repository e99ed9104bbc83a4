#!/usr/bin/env python3
"""Checks that a screenshot of the demo page shows it mid-transition.

    python3 mid-transition.py kiosk.png

The demo page's top pane (#f4f1ea) slides right by progress x width over the
page underneath (green, dimmed). On a row near the top, the pane's left edge
(the first run of 24 pixels of its colour) must be between 10 % and 90 % of the width: neither at rest (0) nor gone (1).
Prints where the edge is. Python's standard library only (a PNG reader for
8-bit RGB or RGBA, not interlaced).
"""

import struct
import sys
import zlib

TOP = (0xF4, 0xF1, 0xEA)


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour}, interlace {interlace})")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, previous, i = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = previous[x]
            c = previous[x - bpp] if x >= bpp else 0
            if kind == 1:
                line[x] = (line[x] + a) & 0xFF
            elif kind == 2:
                line[x] = (line[x] + b) & 0xFF
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        previous = line
    return width, height, rows


def main():
    width, height, rows = read_png(sys.argv[1])
    row = rows[height // 12]
    near = [all(abs(p - q) <= 12 for p, q in zip(pixel, TOP)) for pixel in row]
    edge = next((x for x in range(width) if all(near[x:x + 24])), width)
    fraction = edge / width
    print(f"the top pane's left edge is at {edge} of {width} px ({fraction:.0%})")
    if not 0.1 <= fraction <= 0.9:
        print("not mid-transition: the pane should have slid part of the way", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
