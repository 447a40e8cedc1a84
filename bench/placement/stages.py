#!/usr/bin/env python3
"""Per-stage split of a wavefront run's Chrome trace (--trace).

  python3 bench/placement/stages.py TRACE.json [LABEL]

Prints the span from the first to the last timed event, the time in "plan"
(the device placement's scheduler: from the decision to the stage's start)
and in the stage dispatches, then per stage: dispatches, invocations, time,
nanoseconds per invocation and microseconds per dispatch. The stage times of
a device-placement trace include the stage's routing (hip: the kernel's
tallies and its wait for the slowest block; Vulkan: the routing dispatch).
On Vulkan the trace's timestamp queries make the run slower than one
without a trace (about 3 us per iteration on the H200).
"""
import collections
import json
import sys


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) >= 2 else 2
    try:
        events = json.load(open(sys.argv[1]))
    except (OSError, ValueError) as error:
        print("stages.py: cannot read the trace %s: %s" % (sys.argv[1], error), file=sys.stderr)
        return 1
    label = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
    events = events["traceEvents"] if isinstance(events, dict) else events
    stages = collections.OrderedDict()
    plan = 0.0
    first, last = None, 0.0
    for event in events:
        if event.get("ph") != "X":
            continue
        begin, duration = event["ts"], event["dur"]
        first = begin if first is None else min(first, begin)
        last = max(last, begin + duration)
        if event.get("cat") == "dispatch":
            row = stages.setdefault(event["name"], [0, 0, 0.0])
            row[0] += 1
            row[1] += event.get("args", {}).get("dispatched", 0)
            row[2] += duration
        elif event.get("name") == "plan":
            plan += duration
    if first is None:
        print("%s: no timed events" % label)
        return 1
    print("%s: span %.1f ms, plan %.1f ms, stages %.1f ms" % (
        label, (last - first) / 1e3, plan / 1e3, sum(r[2] for r in stages.values()) / 1e3))
    for name, (dispatches, invocations, duration) in stages.items():
        print("  %-18s %6d dispatches %11d invocations %9.1f ms %7.2f ns/invocation %8.1f us/dispatch"
              % (name, dispatches, invocations, duration / 1e3,
                 duration * 1e3 / max(invocations, 1), duration / dispatches))
    return 0


if __name__ == "__main__":
    sys.exit(main())
