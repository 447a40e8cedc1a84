// sluice-build-megakernel's errors: it needs convert-wave-to-gpu's kernels
// and descriptor.
// RUN: sluice-opt %s --split-input-file --sluice-build-megakernel -verify-diagnostics

// expected-error @+1 {{sluice-build-megakernel: the 'sluice.program' descriptor lacks the stage kernels, owners, producers or counters of convert-wave-to-gpu}}
module attributes {sluice.program = {name = "p"}} {
  gpu.module @sluice_kernels {}
}

// -----

// expected-error @+1 {{sluice-build-megakernel: main stage {kernel = @sluice_kernels::@p__gone, name = "entry"} names no kernel of @sluice_kernels}}
module attributes {sluice.program = {name = "p", main_stages = [{kernel = @sluice_kernels::@p__gone, name = "entry"}], owners = [], producers = [], counters = {alloc_base = 1, release_base = 1, size = 1, stage_base = 0}, publish_stride = 0}} {
  gpu.module @sluice_kernels {}
}

// -----

// expected-error @+1 {{sluice-build-megakernel: owner stage {kernel = @sluice_kernels::@o__gone, name = "h"} names no kernel of @sluice_kernels}}
module attributes {sluice.program = {name = "p", main_stages = [{kernel = @sluice_kernels::@p__entry, name = "entry"}], owners = [{name = "o", capacity = 4, item_size = 4, payload = [i32], stages = [{kernel = @sluice_kernels::@o__gone, name = "h"}]}], producers = [], counters = {alloc_base = 2, release_base = 3, size = 4, stage_base = 0}, publish_stride = 0}} {
  gpu.module @sluice_kernels {
    gpu.func @p__entry(%count: index) kernel {
      gpu.return
    }
  }
}

// -----

// expected-error @+1 {{sluice-build-megakernel: the 'sluice.program' descriptor lacks inputs or bindings}}
module attributes {sluice.program = {name = "p", main_stages = [{kernel = @sluice_kernels::@p__entry, name = "entry"}], owners = [], producers = [], counters = {alloc_base = 1, release_base = 1, size = 1, stage_base = 0}, publish_stride = 0}} {
  gpu.module @sluice_kernels {
    gpu.func @p__entry(%count: index) kernel {
      gpu.return
    }
  }
}

// -----

// A kernel without convert-wave-to-gpu's prologue.
module attributes {sluice.program = {name = "p", main_stages = [{kernel = @sluice_kernels::@p__entry, name = "entry"}], owners = [], producers = [], counters = {alloc_base = 1, release_base = 1, size = 1, stage_base = 0}, publish_stride = 0, inputs = [], bindings = []}} {
  gpu.module @sluice_kernels {
    // expected-error @+1 {{'gpu.func' op is not a stage kernel of convert-wave-to-gpu (the prologue `invocation < count` or the common arguments differ)}}
    gpu.func @p__entry(%count: index) kernel {
      gpu.return
    }
  }
}
