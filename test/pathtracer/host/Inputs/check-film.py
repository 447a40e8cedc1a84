#!/usr/bin/env python3
"""Checks sluice-render's outputs against closed forms (no NumPy needed).

  check-film.py stub FILM.npy PFM W H SPP
      the film and PFM of Inputs/stub-path.mlir: pixel p holds
      (spp (spp + 1) / 2, spp, spp (p + 1) 2^24); the PFM is film / 2^24 / spp
      rounded to f32, bottom row first.
  check-film.py constant PFM W H R G B
      every pixel of the PFM is exactly (R, G, B).
  check-film.py mean PFM W H VALUE TOLERANCE
      the mean of every channel is within TOLERANCE (relative) of VALUE.
Prints "<what>: matches" per check, or the first mismatch (and exits 1).
"""
import ast
import struct
import sys


def read_npy_i64(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", "%s: not a .npy file" % path
    major = data[6]
    if major == 1:
        (length,) = struct.unpack_from("<H", data, 8)
        start = 10
    else:
        (length,) = struct.unpack_from("<I", data, 8)
        start = 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    assert header["descr"] == "<i8", "%s: dtype %s" % (path, header["descr"])
    body = data[start + length:]
    count = len(body) // 8
    return list(struct.unpack("<%dq" % count, body)), header["shape"]


def read_pfm(path):
    data = open(path, "rb").read()
    tokens, at = [], 0
    while len(tokens) < 4:
        while data[at:at + 1].isspace():
            at += 1
        end = at
        while not data[end:end + 1].isspace():
            end += 1
        tokens.append(data[at:end].decode())
        at = end + 1
    assert tokens[0] == "PF", "%s: magic %r" % (path, tokens[0])
    width, height, scale = int(tokens[1]), int(tokens[2]), float(tokens[3])
    assert scale < 0, "%s: scale %s is not little-endian" % (path, scale)
    rows = struct.unpack("<%df" % (3 * width * height), data[at:])
    # Bottom row first: flip to top-first.
    top_first = []
    for y in range(height - 1, -1, -1):
        top_first += rows[3 * width * y:3 * width * (y + 1)]
    return width, height, top_first


def f32(value):
    return struct.unpack("<f", struct.pack("<f", value))[0]


def fail(message):
    print(message)
    sys.exit(1)


def main():
    mode = sys.argv[1]
    if mode == "stub":
        film_path, pfm_path = sys.argv[2], sys.argv[3]
        width, height, spp = (int(v) for v in sys.argv[4:7])
        film, shape = read_npy_i64(film_path)
        if shape != (3 * width * height,):
            fail("film: shape %s" % (shape,))
        for p in range(width * height):
            want = [spp * (spp + 1) // 2, spp, spp * (p + 1) << 24]
            if film[3 * p:3 * p + 3] != want:
                fail("film: pixel %d holds %s, expected %s"
                     % (p, film[3 * p:3 * p + 3], want))
        print("film: matches")
        w, h, image = read_pfm(pfm_path)
        if (w, h) != (width, height):
            fail("pfm: %d x %d" % (w, h))
        for i, v in enumerate(image):
            want = f32(film[i] / 2.0 ** 24 / spp)
            if v != want:
                fail("pfm: value %d is %r, expected %r" % (i, v, want))
        print("pfm: matches")
    elif mode == "constant":
        w, h, image = read_pfm(sys.argv[2])
        if (w, h) != (int(sys.argv[3]), int(sys.argv[4])):
            fail("pfm: %d x %d" % (w, h))
        want = [f32(float(v)) for v in sys.argv[5:8]]
        for p in range(w * h):
            if list(image[3 * p:3 * p + 3]) != want:
                fail("pfm: pixel %d is %s, expected %s"
                     % (p, image[3 * p:3 * p + 3], want))
        print("pfm: matches")
    elif mode == "mean":
        w, h, image = read_pfm(sys.argv[2])
        value, tolerance = float(sys.argv[5]), float(sys.argv[6])
        for c in range(3):
            mean = sum(image[c::3]) / (w * h)
            if abs(mean - value) > tolerance * value:
                fail("pfm: channel %d has mean %.6f, expected %.6f within %g"
                     % (c, mean, value, tolerance))
        print("pfm: mean matches")
    else:
        fail("unknown mode %s" % mode)


if __name__ == "__main__":
    main()
