// Every verifier diagnostic of the cohort dialect.
// RUN: sluice-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'cohort.graph' op attribute 'cores' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
cohort.graph @no_cores cores 0 {
}

// -----

// expected-error @below {{attribute 'cores' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
cohort.graph @negative_cores cores -2 {
}

// -----

func.func @k() {
  return
}
cohort.graph @g cores 4 {
  // expected-error @below {{'cohort.task' op needs at least one block, got 0}}
  cohort.task @t kernel @k blocks 0
}

// -----

func.func @k() {
  return
}
cohort.graph @g cores 4 {
  // expected-error-re @below {{'cohort.task' op needs at least one block, got -3{{$}}}}
  cohort.task @t kernel @k blocks -3
}

// -----

func.func @k() {
  return
}
cohort.graph @g cores 4 {
  // expected-error-re @below {{'cohort.task' op 'sync_start' requires more than one block, got 1{{$}}}}
  cohort.task @t kernel @k blocks 1 sync_start
}

// -----

cohort.graph @g cores 4 {
  // expected-error @below {{'cohort.task' op unknown kernel @missing}}
  cohort.task @t kernel @missing blocks 2
}

// -----

// Kernels resolve beside the graph, not among its tasks.
func.func @k() {
  return
}
cohort.graph @g cores 4 {
  cohort.task @a kernel @k blocks 2
  // expected-error @below {{'cohort.task' op unknown kernel @a}}
  cohort.task @b kernel @a blocks 2
}

// -----

// expected-note @below {{symbol defined here}}
pool.owner @not_a_kernel capacity 1 stages ["a"] payload [] {
  pool.handler "a" (%item) {
    pool.release %item
  }
}
cohort.graph @g cores 4 {
  // expected-error @below {{'cohort.task' op kernel @not_a_kernel is a 'pool.owner', not a function}}
  cohort.task @t kernel @not_a_kernel blocks 2
}

// -----

func.func @task_outside_graph() {
  // expected-error @below {{'cohort.task' op expects parent op 'cohort.graph'}}
  cohort.task @t kernel @task_outside_graph blocks 2
  return
}

// -----

func.func @k() {
  return
}
cohort.graph @g cores 4 {
  cohort.task @a kernel @k blocks 2
  // expected-error @below {{'cohort.dependency' op unknown task @missing in graph @g}}
  cohort.dependency @a -> @missing
}

// -----

func.func @k() {
  return
}
cohort.graph @g cores 4 {
  cohort.task @a kernel @k blocks 2
  // expected-error @below {{'cohort.dependency' op unknown task @missing in graph @g}}
  cohort.dependency @missing -> @a
}

// -----

func.func @k() {
  return
}
cohort.graph @g cores 4 {
  cohort.task @a kernel @k blocks 2
  // expected-error @below {{'cohort.dependency' op task @a cannot depend on itself}}
  cohort.dependency @a -> @a
}

// -----

func.func @dependency_outside_graph() {
  // expected-error @below {{'cohort.dependency' op expects parent op 'cohort.graph'}}
  cohort.dependency @a -> @b
  return
}

// -----

cohort.graph @g cores 4 {
  // expected-error @below {{'arith.constant' op is not allowed in the body of 'cohort.graph'; only 'cohort.task' and 'cohort.dependency' are}}
  %c = arith.constant 1 : i32
}

// -----

func.func @k() {
  return
}
cohort.graph @outer cores 4 {
  // expected-error @below {{'cohort.graph' op is not allowed in the body of 'cohort.graph'; only 'cohort.task' and 'cohort.dependency' are}}
  cohort.graph @inner cores 4 {
  }
}

// -----

func.func @launch_unknown() {
  // expected-error @below {{'cohort.launch' op 'missing' does not reference a 'cohort.graph'}}
  cohort.launch @missing
  return
}

// -----

func.func @launch_function() {
  // expected-error @below {{'cohort.launch' op 'launch_function' does not reference a 'cohort.graph'}}
  cohort.launch @launch_function
  return
}
