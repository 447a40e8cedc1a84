#!/usr/bin/env python3
"""Checks the shadow pool's L <= C in a sluice-render --trace file.

  check-trace-capacity.py TRACE.json OWNER CAPACITY

Every counter event "OWNER items" of the Chrome trace (docs/runtime.md,
"Reading the trace") holds, at one observation, the items waiting at each of
the owner's stages and "capacity free" = C - L. The live items L are the sum
over the stages. Checks, at every observation, that 0 <= L <= CAPACITY and
that "capacity free" is exactly CAPACITY - L (so the runtime's capacity is the
one given), and that the pool was used at all. Prints one summary line, or the
first violation (and exits 1).
"""
import json
import sys


def main():
    path, owner, capacity = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    name = owner + " items"
    observations = 0
    peak = 0
    for event in events:
        if event.get("ph") != "C" or event.get("name") != name:
            continue
        args = dict(event["args"])
        free = args.pop("capacity free")
        live = sum(args.values())
        observations += 1
        if not 0 <= live <= capacity:
            print("%s: at ts %s, %d live items, capacity %d"
                  % (owner, event["ts"], live, capacity))
            return 1
        if free != capacity - live:
            print("%s: at ts %s, 'capacity free' is %d, but %d - %d live = %d"
                  % (owner, event["ts"], free, capacity, live, capacity - live))
            return 1
        peak = max(peak, live)
    if observations == 0 or peak == 0:
        print("%s: the trace has %d observations and never a live item"
              % (owner, observations))
        return 1
    print("%s: %d observations, live items never above the capacity %d "
          "(peak %d)" % (owner, observations, capacity, peak))
    return 0


if __name__ == "__main__":
    sys.exit(main())
