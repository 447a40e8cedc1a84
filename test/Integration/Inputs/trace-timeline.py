#!/usr/bin/env python3
"""Checks that a Chrome trace of a wavefront run (--trace) has a time line:
per iteration one "plan" event and one dispatch event, the dispatch starting
where its plan ends, iterations in order without overlap, and (--timed) the
device clock read: the run's events span more than zero time and every
dispatch lasts more than zero. Prints "timeline: N iterations" or the first
violation (exit 1).

  python3 trace-timeline.py TRACE.json [--timed]
"""
import json
import sys


def main():
    path = sys.argv[1]
    timed = "--timed" in sys.argv[2:]
    with open(path) as fh:
        events = json.load(fh)
    events = events["traceEvents"] if isinstance(events, dict) else events
    plans = [e for e in events if e.get("name") == "plan"]
    dispatches = [e for e in events if e.get("cat") == "dispatch"]
    if not plans or len(plans) != len(dispatches):
        print("timeline: %d plan events, %d dispatch events" % (len(plans), len(dispatches)))
        return 1
    end = 0.0
    for i, (p, d) in enumerate(zip(plans, dispatches)):
        if p["args"]["iteration"] != i or d["args"]["iteration"] != i:
            print("timeline: event %d is of iteration %s/%s" % (i, p["args"]["iteration"],
                                                              d["args"]["iteration"]))
            return 1
        if p["ts"] + 1e-3 < end:
            print("timeline: iteration %d plans at %.3f us, before %.3f us" % (i, p["ts"], end))
            return 1
        if abs(p["ts"] + p["dur"] - d["ts"]) > 1e-3:
            print("timeline: iteration %d: the plan ends at %.3f us, the dispatch begins at %.3f"
                  % (i, p["ts"] + p["dur"], d["ts"]))
            return 1
        if timed and d["dur"] <= 0:
            print("timeline: iteration %d: its dispatch takes no time" % i)
            return 1
        end = d["ts"] + d["dur"]
    if timed and end <= plans[0]["ts"]:
        print("timeline: the run spans no time")
        return 1
    print("timeline: %d iterations" % len(plans))
    return 0


if __name__ == "__main__":
    sys.exit(main())
