#!/usr/bin/env python3
"""Writes one section of a Sluice artifact to stdout, read from the container
layout of docs/artifact.md alone: artifact-section.py FILE NAME."""
import struct, sys

data = open(sys.argv[1], "rb").read()
count = struct.unpack_from("<I", data, 12)[0]
for i in range(count):
    entry = data[32 + 32 * i: 64 + 32 * i]
    name = entry[:16].split(b"\0", 1)[0].decode()
    offset, size = struct.unpack_from("<QQ", entry, 16)
    if name == sys.argv[2]:
        sys.stdout.buffer.write(data[offset:offset + size])
        sys.exit(0)
sys.exit("artifact-section.py: no section '%s' in %s" % (sys.argv[2], sys.argv[1]))
