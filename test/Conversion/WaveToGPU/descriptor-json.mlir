// The program descriptor as JSON (sluice-translate --sluice-to-descriptor-json).
// RUN: sluice-opt %s --wave-split=layout=aos --convert-wave-to-gpu | sluice-translate --sluice-to-descriptor-json | FileCheck %s
// RUN: %expect-exit 1 sluice-translate %s --sluice-to-descriptor-json 2>&1 | FileCheck %s --check-prefix=UNLOWERED

// UNLOWERED: error: no 'sluice.program' program descriptor; run convert-wave-to-gpu first

// Two owners, both fed by "work" (bounds 3 and 1): the publish record is 4
// long, @a's part at 0 and @b's at 3. Global stages: entry 0, work 1, then
// @a's "x" 2 and @b's "y" 3, "z" 4; free-ring heads at 5 and 6, release counts
// at 7 and 8. Frame (AoS): header, then %n (arg0, i64 at 8), %f (arg1, f32
// at 16) and %small (v0, i8 at 20): end 21, stride 24. Items: @a holds an
// i64 and an i8 (9 bytes, padded to 16), @b nothing (0 bytes).
// CHECK:      {
// CHECK-NEXT:   "bindings": [],
// CHECK-NEXT:   "check_bounds": false,
// CHECK-NEXT:   "counters": {
// CHECK-NEXT:     "alloc_base": 5,
// CHECK-NEXT:     "release_base": 7,
// CHECK-NEXT:     "size": 9,
// CHECK-NEXT:     "stage_base": 0
// CHECK-NEXT:   },
// CHECK-NEXT:   "entry_stage": 0,
// CHECK-NEXT:   "frame": {
// CHECK-NEXT:     "fields": [
// CHECK:              "name": "lane",
// CHECK-NEXT:         "offset": 0,
// CHECK:              "name": "next",
// CHECK-NEXT:         "offset": 4,
// CHECK:              "align": 8,
// CHECK-NEXT:         "name": "arg0",
// CHECK-NEXT:         "offset": 8,
// CHECK-NEXT:         "size": 8,
// CHECK-NEXT:         "type": "i64"
// CHECK:              "align": 4,
// CHECK-NEXT:         "name": "arg1",
// CHECK-NEXT:         "offset": 16,
// CHECK-NEXT:         "size": 4,
// CHECK-NEXT:         "type": "f32"
// CHECK:          "layout": "aos",
// CHECK-NEXT:     "stride": 24{{$}}
// CHECK-NEXT:   },
// CHECK-NEXT:   "inputs": [
// CHECK-NEXT:     "i64",
// CHECK-NEXT:     "f32"
// CHECK-NEXT:   ],
// CHECK-NEXT:   "main_stages": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "kernel": "two__entry",
// CHECK-NEXT:       "name": "entry"
// CHECK-NEXT:     },
// CHECK-NEXT:     {
// CHECK-NEXT:       "kernel": "two__work",
// CHECK-NEXT:       "name": "work"
// CHECK-NEXT:     }
// CHECK-NEXT:   ],
// CHECK-NEXT:   "name": "two",
// CHECK-NEXT:   "owners": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "capacity": 16,
// CHECK-NEXT:       "item_size": 16,
// CHECK-NEXT:       "name": "a",
// CHECK:            "stages": [
// CHECK-NEXT:         {
// CHECK-NEXT:           "kernel": "a__x",
// CHECK-NEXT:           "name": "x"
// CHECK:            "capacity": 8,
// CHECK-NEXT:       "item_size": 0,
// CHECK-NEXT:       "name": "b",
// CHECK-NEXT:       "payload": [],
// CHECK-NEXT:       "stages": [
// CHECK-NEXT:         {
// CHECK-NEXT:           "kernel": "b__y",
// CHECK-NEXT:           "name": "y"
// CHECK-NEXT:         },
// CHECK-NEXT:         {
// CHECK-NEXT:           "kernel": "b__z",
// CHECK-NEXT:           "name": "z"
// CHECK:        "producers": [
// CHECK-NEXT:     {
// CHECK-NEXT:       "bound": 3,
// CHECK-NEXT:       "owner": 0,
// CHECK-NEXT:       "publish_base": 0,
// CHECK-NEXT:       "stage": 1{{$}}
// CHECK-NEXT:     },
// CHECK-NEXT:     {
// CHECK-NEXT:       "bound": 1,
// CHECK-NEXT:       "owner": 1,
// CHECK-NEXT:       "publish_base": 3,
// CHECK-NEXT:       "stage": 1{{$}}
// CHECK-NEXT:     }
// CHECK-NEXT:   ],
// CHECK-NEXT:   "publish_stride": 4,
// CHECK-NEXT:   "version": 2{{$}}
// CHECK-NEXT: }

pool.owner @a capacity 16 stages ["x"] payload [i64, i8] {
  pool.handler "x" (%item) {
    pool.release %item
  }
}
pool.owner @b capacity 8 stages ["y", "z"] payload [] {
  pool.handler "y" (%item) {
    pool.move %item to "z"
  }
  pool.handler "z" (%item) {
    pool.release %item
  }
}
pool.emission_bound @two -> @a max 3
pool.emission_bound @two -> @b max 1

wave.coroutine @two(%n: i64, %f: f32) {
  %small = arith.trunci %n : i64 to i8
  wave.suspend "work"
  pool.publish @a "x" (%n, %small) : i64, i8
  pool.publish @a "x" (%n, %small) : i64, i8
  pool.publish @b "y"
  %g = arith.addf %f, %f : f32
  %t = arith.fptosi %g : f32 to i64
  pool.publish @a "x" (%t, %small) : i64, i8
  wave.terminate
}
