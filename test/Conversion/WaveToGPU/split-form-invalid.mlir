// Hand-written split forms that verify but that convert-wave-to-gpu cannot
// lower (wave-split never produces them).
// RUN: sluice-opt %s -split-input-file -verify-diagnostics --convert-wave-to-gpu

// Stage ids number the main stages from 0: the descriptor indexes by them.
wave.coroutine @ids() {
  wave.frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>]
  // expected-error @below {{'wave.stage' op stage ids must be 0, 1, ... in order}}
  wave.stage 1 "entry" {
  ^bb0(%frame: index):
    wave.next %frame done
  }
  wave.terminate
}

// -----

// A suspension left inside a stage: the split form ends a stage with
// wave.next, and no gpu pattern lowers wave.suspend.
wave.coroutine @left() {
  wave.frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>]
  wave.stage 0 "entry" {
  ^bb0(%frame: index):
    // expected-error @below {{'wave.suspend' op could not be lowered to the gpu form}}
    wave.suspend "s"
    wave.next %frame done
  }
  wave.terminate
}
