// Verifier diagnostics of the split-form ops.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics

wave.coroutine @not_split() {
  // expected-error @below {{'wave.stage' op body must take the frame index (index) as its first argument}}
  wave.stage 0 "entry" {
  ^bb0(%frame: i32):
    llvm.unreachable
  }
  wave.terminate
}

// -----

wave.coroutine @no_layout() {
  wave.stage 0 "entry" {
  ^bb0(%frame: index):
    // expected-error @below {{'wave.frame_load' op must be nested inside a split 'wave.coroutine' (one with a 'wave.frame_layout')}}
    %v = wave.frame_load %frame "x" : i32
    wave.next %frame done
  }
  wave.terminate
}

// -----

wave.coroutine @fields() {
  wave.frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"v0" : f32, size 4, align 4>]
  wave.stage 0 "entry" {
  ^bb0(%frame: index):
    // expected-error @below {{'wave.frame_load' op the frame has no field 'v1'}}
    %v = wave.frame_load %frame "v1" : f32
    wave.next %frame done
  }
  wave.terminate
}

// -----

wave.coroutine @field_type() {
  wave.frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"v0" : f32, size 4, align 4>]
  wave.stage 0 "entry" {
  ^bb0(%frame: index, %x: i32):
    // expected-error @below {{'wave.frame_store' op field 'v0' has type 'f32', not 'i32'}}
    wave.frame_store %x, %frame "v0" : i32
    wave.next %frame done
  }
  wave.terminate
}

// -----

wave.coroutine @next_field() {
  wave.frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>]
  wave.stage 0 "entry" {
  ^bb0(%frame: index, %x: i32):
    // expected-error @below {{'wave.frame_store' op the 'next' header field is written only by 'wave.next'}}
    wave.frame_store %x, %frame "next" : i32
    wave.next %frame done
  }
  wave.terminate
}

// -----

wave.coroutine @unknown_stage() {
  wave.frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>]
  wave.stage 0 "entry" {
  ^bb0(%frame: index):
    // expected-error @below {{'wave.next' op @unknown_stage has no stage 'shade'}}
    wave.next %frame "shade"
  }
  wave.terminate
}

// -----

wave.coroutine @resume_args() {
  wave.frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>]
  // expected-error @below {{'wave.stage' op only the entry stage (id 0) takes the coroutine arguments}}
  wave.stage 1 "s" {
  ^bb0(%frame: index, %x: i32):
    wave.next %frame done
  }
  wave.terminate
}

// -----

wave.coroutine @layout_kind() {
  // expected-error @below {{'wave.frame_layout' op layout must be 'aos' or 'soa', got 'rows'}}
  wave.frame_layout "rows" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>]
  wave.terminate
}

// -----

wave.coroutine @aos_stride() {
  // expected-error @below {{'wave.frame_layout' op an 'aos' layout needs a stride}}
  wave.frame_layout "aos" [#wave.field<"lane" : i32, size 4, align 4, offset 0>, #wave.field<"next" : i32, size 4, align 4, offset 4>]
  wave.terminate
}

// -----

wave.coroutine @soa_offset() {
  // expected-error @below {{'wave.frame_layout' op field 'lane' has no offset in an 'soa' layout}}
  wave.frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4, offset 0>, #wave.field<"next" : i32, size 4, align 4>]
  wave.terminate
}

// -----

wave.coroutine @aos_no_offset() {
  // expected-error @below {{'wave.frame_layout' op field 'next' needs an offset in an 'aos' layout}}
  wave.frame_layout "aos" stride 8 [#wave.field<"lane" : i32, size 4, align 4, offset 0>, #wave.field<"next" : i32, size 4, align 4>]
  wave.terminate
}

// -----

wave.coroutine @misaligned() {
  // expected-error-re @below {{'wave.frame_layout' op field 'v0' at offset 10 is misaligned or outside the stride 16{{$}}}}
  wave.frame_layout "aos" stride 16 [#wave.field<"lane" : i32, size 4, align 4, offset 0>, #wave.field<"next" : i32, size 4, align 4, offset 4>, #wave.field<"v0" : i32, size 4, align 4, offset 10>]
  wave.terminate
}

// -----

wave.coroutine @duplicate_field() {
  // expected-error @below {{'wave.frame_layout' op field 'v0' appears more than once}}
  wave.frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"v0" : i32, size 4, align 4>, #wave.field<"v0" : i32, size 4, align 4>]
  wave.terminate
}

// -----

wave.coroutine @bad_field() {
  // expected-error @below {{'wave.frame_layout' op field 'v0' needs a positive size and a power-of-two alignment}}
  wave.frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"next" : i32, size 4, align 4>, #wave.field<"v0" : i32, size 4, align 3>]
  wave.terminate
}

// -----

wave.coroutine @no_header() {
  // expected-error @below {{'wave.frame_layout' op field #1 must be the header field 'next'}}
  wave.frame_layout "soa" [#wave.field<"lane" : i32, size 4, align 4>, #wave.field<"v0" : i32, size 4, align 4>]
  wave.terminate
}
