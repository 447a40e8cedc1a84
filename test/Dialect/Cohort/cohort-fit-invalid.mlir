// Every diagnostic of --sluice-verify-cohort-fit.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics \
// RUN:   --sluice-verify-cohort-fit

func.func @k() {
  return
}
cohort.graph @g cores 4 {
  cohort.task @fits kernel @k blocks 4 sync_start
  // expected-error @below {{'cohort.task' op cohort @too_wide has 5 blocks but graph @g has 4 cores: its blocks can never be co-resident}}
  cohort.task @too_wide kernel @k blocks 5 sync_start allow_early_resolve
  // expected-error @below {{'cohort.task' op cohort @far_too_wide has 64 blocks but graph @g has 4 cores: its blocks can never be co-resident}}
  cohort.task @far_too_wide kernel @k blocks 64 sync_start
}

// -----

func.func @k() {
  return
}
// expected-error @below {{'cohort.graph' op has a dependency cycle: @a -> @b -> @a}}
cohort.graph @two_cycle cores 4 {
  cohort.task @a kernel @k blocks 1
  cohort.task @b kernel @k blocks 1
  // expected-note @below {{dependency @a -> @b}}
  cohort.dependency @a -> @b
  // expected-note @below {{dependency @b -> @a}}
  cohort.dependency @b -> @a
}

// -----

func.func @k() {
  return
}
// The cycle is named from where the search enters it: @start is not on it.
// expected-error @below {{'cohort.graph' op has a dependency cycle: @x -> @y -> @z -> @x}}
cohort.graph @three_cycle cores 4 {
  cohort.task @start kernel @k blocks 1
  cohort.task @x kernel @k blocks 1
  cohort.task @y kernel @k blocks 2 sync_start
  cohort.task @z kernel @k blocks 1
  cohort.dependency @start -> @x
  // expected-note @below {{dependency @x -> @y}}
  cohort.dependency @x -> @y
  // expected-note @below {{dependency @z -> @x}}
  cohort.dependency @z -> @x
  // expected-note @below {{dependency @y -> @z}}
  cohort.dependency @y -> @z
}

// -----

// Both problems in one graph are reported.
func.func @k() {
  return
}
// expected-error @below {{'cohort.graph' op has a dependency cycle: @a -> @b -> @a}}
cohort.graph @both cores 2 {
  // expected-error @below {{'cohort.task' op cohort @a has 3 blocks but graph @both has 2 cores: its blocks can never be co-resident}}
  cohort.task @a kernel @k blocks 3 sync_start
  cohort.task @b kernel @k blocks 1
  // expected-note @below {{dependency @a -> @b}}
  cohort.dependency @a -> @b
  // expected-note @below {{dependency @b -> @a}}
  cohort.dependency @b -> @a
}
