// --sluice-verify-cohort-fit=cores=N replaces every graph's core count.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics \
// RUN:   --sluice-verify-cohort-fit=cores=2
// RUN: sluice-opt %s -split-input-file --sluice-verify-cohort-fit=cores=8 \
// RUN:   | FileCheck %s --check-prefix=EIGHT
// RUN: %expect-exit 1 sluice-opt %s -split-input-file --sluice-verify-cohort-fit=cores=-1 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NEGATIVE

// NEGATIVE: error: option 'cores' must be positive (or 0 to use each graph's own core count), got -1{{$}}

func.func @k() {
  return
}
// Fits the graph's own 8 cores, but not 2.
// EIGHT-LABEL: cohort.graph @large cores 8 {
cohort.graph @large cores 8 {
  // expected-error @below {{'cohort.task' op cohort @c has 3 blocks but graph @large has 2 cores: its blocks can never be co-resident}}
  cohort.task @c kernel @k blocks 3 sync_start
}

// -----

func.func @k() {
  return
}
// Does not fit the graph's own 1 core, but fits 2 and 8.
// EIGHT-LABEL: cohort.graph @small cores 1 {
cohort.graph @small cores 1 {
  cohort.task @c kernel @k blocks 2 sync_start
}
