#!/usr/bin/env python3
"""Rewrites a Sluice artifact for the bad-input tests, from docs/artifact.md
alone (a second implementation of the container, independent of the
runtime's reader and writer).

  edit-artifact.py IN OUT --set PATH=JSON   set a descriptor field
                          --drop PATH       remove a descriptor field
                          --header OFFSET=U32  overwrite a header word
                          --truncate N      keep the first N bytes
                          --rename OLD=NEW  rename a section
                          --section-bytes NAME=N  keep N bytes of a section
                          --raw OLD=NEW     replace text in the descriptor's JSON

PATH is dotted with [i] indices, e.g. owners[0].capacity.
"""
import argparse, json, re, struct, sys

HEADER, ENTRY, ALIGN = 32, 32, 16


def read(data):
    count = struct.unpack_from("<I", data, 12)[0]
    sections = []
    for i in range(count):
        raw = data[HEADER + ENTRY * i: HEADER + ENTRY * (i + 1)]
        name = raw[:16].split(b"\0", 1)[0].decode()
        off, size = struct.unpack_from("<QQ", raw, 16)
        sections.append((name, data[off:off + size]))
    return data[:HEADER], sections


def write(header, sections):
    count = len(sections)
    out = bytearray(header[:12] + struct.pack("<I", count) + header[16:HEADER])
    offset = -(-(HEADER + ENTRY * count) // ALIGN) * ALIGN
    table, payload = bytearray(), bytearray()
    for name, body in sections:
        table += name.encode()[:16].ljust(16, b"\0") + struct.pack("<QQ", offset, len(body))
        pad = -(-len(body) // ALIGN) * ALIGN
        payload += body + b"\0" * (pad - len(body))
        offset += pad
    out += table
    out += b"\0" * (-(-len(out) // ALIGN) * ALIGN - len(out))
    return bytes(out + payload)


def walk(doc, path):
    keys = [k for k in re.split(r"\.|\[(\d+)\]", path) if k]
    for k in keys[:-1]:
        doc = doc[int(k)] if k.isdigit() else doc[k]
    last = keys[-1]
    return doc, int(last) if last.isdigit() else last


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("input"); ap.add_argument("output")
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--drop", action="append", default=[])
    ap.add_argument("--header", action="append", default=[])
    ap.add_argument("--truncate", type=int)
    ap.add_argument("--rename", action="append", default=[])
    ap.add_argument("--section-bytes", action="append", default=[])
    ap.add_argument("--raw", action="append", default=[])
    opts = ap.parse_args()
    data = open(opts.input, "rb").read()
    header, sections = read(data)
    names = [n for n, _ in sections]
    i = names.index("descriptor")
    doc = json.loads(sections[i][1])
    for item in opts.set:
        path, value = item.split("=", 1)
        parent, key = walk(doc, path)
        parent[key] = json.loads(value)
    for path in opts.drop:
        parent, key = walk(doc, path)
        del parent[key]
    text = json.dumps(doc)
    for item in opts.raw:
        old, new = item.split("=", 1)
        text = text.replace(old, new)
    sections[i] = ("descriptor", text.encode())
    for item in opts.section_bytes:
        name, count = item.split("=")
        sections = [(n, b[:int(count)] if n == name else b) for n, b in sections]
    for item in opts.rename:
        old, new = item.split("=")
        sections = [(new if n == old else n, b) for n, b in sections]
    out = bytearray(write(header, sections))
    for item in opts.header:
        off, value = item.split("=")
        struct.pack_into("<I", out, int(off), int(value))
    if opts.truncate is not None:
        out = out[:opts.truncate]
    open(opts.output, "wb").write(bytes(out))


if __name__ == "__main__":
    sys.exit(main())
