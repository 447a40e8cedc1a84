/*===- sluice_program.h - The C API of compiled programs ----------*- C -*-===//
 *
 * Plain C (C99) over sluice::runtime::Program (program/session.h): load a
 * compiled-program artifact on a backend, bind buffers and set uniforms by
 * name, run, read bindings back (docs/embedding.md). In
 * Sluice::SluiceRuntimeBackends; an executable that runs CPU kernels must
 * export the runtime's symbols (CMake ENABLE_EXPORTS, or -rdynamic).
 *
 *   sluice_program *program = NULL;
 *   if (sluice_program_load_file("shadow.sluice", "cpu", &program)) {
 *     fprintf(stderr, "%s\n", sluice_program_last_error(program));
 *     sluice_program_destroy(program);
 *     return 1;
 *   }
 *   int64_t shape[1] = {61};
 *   sluice_program_bind_buffer(program, "occluders", SLUICE_ELEMENT_I32, 1,
 *                              shape, occluders, sizeof occluders);
 *   sluice_program_set_uniform_i32(program, "lights", 61);
 *   sluice_program_set_uniform_i32(program, "shift", 5);
 *   sluice_run_report report;
 *   sluice_program_run(program, 4096, NULL, &report);
 *   int32_t film[4096];
 *   sluice_program_read_binding(program, "film", SLUICE_ELEMENT_I32, film,
 *                               sizeof film, NULL);
 *   sluice_program_destroy(program);
 *
 * Every function that can fail returns a sluice_status (0: success); the
 * handle's last error is the message of its most recent failure ("" after a
 * success). A handle is used by one thread at a time. Bound values are
 * copied: the caller's memory may be reused as soon as a call returns.
 *
 *===----------------------------------------------------------------------===*/
#ifndef SLUICE_RUNTIME_PROGRAM_SLUICE_PROGRAM_H
#define SLUICE_RUNTIME_PROGRAM_SLUICE_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The status of a call: the runtime's ErrorKind (admission/status.h). */
typedef enum sluice_status {
  SLUICE_OK = 0,
  SLUICE_INVALID_DESCRIPTOR = 1, /* a malformed or unreadable artifact */
  SLUICE_INVALID_ARGUMENT = 2,   /* an unknown name, a wrong type or shape */
  SLUICE_CAPACITY_EXCEEDED = 3,
  SLUICE_COUNT_MISMATCH = 4,
  SLUICE_AVAILABILITY_OUT_OF_RANGE = 5,
  SLUICE_EMPTY_OWNER_AVAILABILITY = 6,
  SLUICE_INVALID_ADMISSION_STAGE = 7,
  SLUICE_EMISSION_BOUND_EXCEEDED = 8,
  SLUICE_LINEARITY_VIOLATION = 9,
  SLUICE_INVALID_TRANSITION = 10,
  SLUICE_NO_PROGRESS = 11,
  SLUICE_ITERATION_LIMIT = 12,
  SLUICE_OUT_OF_MEMORY = 13,
  SLUICE_ARITHMETIC_OVERFLOW = 14,
  SLUICE_UNSUPPORTED = 15,
  SLUICE_INVALID_STATE = 16,      /* a handle that failed to load */
  SLUICE_DEVICE_UNAVAILABLE = 17, /* no Vulkan loader or device */
  SLUICE_DEVICE_ERROR = 18,
  SLUICE_INDEX_OUT_OF_BOUNDS = 19, /* a checked kernel indexed out of bounds */
} sluice_status;

/* "invalid argument", ...; "unknown status" for another value. */
const char *sluice_status_name(sluice_status status);

typedef enum sluice_element_type {
  SLUICE_ELEMENT_I32 = 0,
  SLUICE_ELEMENT_I64 = 1,
  SLUICE_ELEMENT_F32 = 2,
  SLUICE_ELEMENT_F64 = 3,
} sluice_element_type;

/* 4 or 8; 0 for a value that is not a sluice_element_type. */
size_t sluice_element_size(sluice_element_type element);

typedef enum sluice_binding_kind {
  SLUICE_BINDING_BUFFER = 0,
  SLUICE_BINDING_UNIFORM = 1,
} sluice_binding_kind;

/* The declared access of a binding (a uniform is read-only). */
typedef enum sluice_binding_access {
  SLUICE_ACCESS_READONLY = 0,
  SLUICE_ACCESS_WRITEONLY = 1,
  SLUICE_ACCESS_READWRITE = 2,
} sluice_binding_access;

typedef enum sluice_schedule {
  SLUICE_SCHEDULE_WAVEFRONT = 0,
  SLUICE_SCHEDULE_STATE_MACHINE = 1, /* every backend (Vulkan: the megakernel) */
} sluice_schedule;

/* One binding; the pointers stay valid until the handle is destroyed. */
typedef struct sluice_binding_info {
  const char *name;
  sluice_binding_kind kind;
  sluice_element_type element;
  uint32_t rank;        /* 0 for a uniform */
  const int64_t *shape; /* rank extents, -1 for a dynamic one */
  sluice_binding_access access;
  int read, written, atomic; /* inferred from the kernels */
  int required; /* 0: a static buffer the program never reads (starts zeroed) */
} sluice_binding_info;

/* How a run goes; sluice_run_options_init sets the defaults. */
typedef struct sluice_run_options {
  sluice_schedule schedule;  /* SLUICE_SCHEDULE_WAVEFRONT */
  uint32_t frame_pool;       /* 256 */
  int partial_admission;     /* 1 */
  uint32_t workers;          /* 0: one per core (CPU backend only) */
  const char *trace_path;    /* NULL: no Chrome trace (wavefront only) */
  uint64_t max_iterations;   /* 0: unbounded */
} sluice_run_options;

void sluice_run_options_init(sluice_run_options *options);

/* What the last run did. */
typedef struct sluice_run_report {
  sluice_status status;
  uint64_t lanes;          /* asked for */
  uint64_t lanes_finished;
  uint64_t iterations;     /* wavefront iterations */
  double seconds;          /* wall time of the schedule (its storage was set up before) */
  uint32_t stage_count;    /* sluice_program_stage_statistics indexes */
} sluice_run_report;

/* One stage's statistics in the last run (global stage order: main stages,
 * then each owner's). `name` stays valid until the next run or destroy. */
typedef struct sluice_stage_statistics {
  const char *name; /* "bounce", "shadow.shade" */
  uint64_t dispatches, invocations, items_published, items_released;
  uint64_t partial_admissions, admission_blocks, drain_dispatches;
} sluice_stage_statistics;

typedef struct sluice_program sluice_program;

/* Loads an artifact (its bytes, or a file) on `backend` ("cpu", "vulkan";
 * sluice_backend_names lists them). Sets *out to a new handle, even on
 * failure (unless out of memory or `out` is NULL), so that its last error
 * says why; a handle that failed to load answers every other call with
 * SLUICE_INVALID_STATE. Destroy it either way. `lanes` sizes the lane inputs
 * (a run with more lanes loads the kernels again); 0 means 1. */
sluice_status sluice_program_load_memory(const void *bytes, size_t size,
                                         const char *backend, uint32_t lanes,
                                         sluice_program **out);
sluice_status sluice_program_load_file(const char *path, const char *backend,
                                       uint32_t lanes, sluice_program **out);
void sluice_program_destroy(sluice_program *program); /* NULL: nothing */

/* "cpu, vulkan". */
const char *sluice_backend_names(void);

/* The message of the handle's last failure; "" if the last call succeeded.
 * Valid until the next call on the handle. NULL handle: a fixed message. */
const char *sluice_program_last_error(const sluice_program *program);

/* The coroutine's name, without '@' ("" for a handle that failed to load). */
const char *sluice_program_name(const sluice_program *program);

/* The bindings, in descriptor order. */
uint32_t sluice_program_binding_count(const sluice_program *program);
sluice_status sluice_program_binding(sluice_program *program, uint32_t index,
                                     sluice_binding_info *out);

/* Binds buffer `name` to `bytes` bytes at `data`: `rank` extents in `shape`
 * (row-major), element type `element`; both must match the binding's, and
 * `bytes` must be the shape's element count times the element size. */
sluice_status sluice_program_bind_buffer(sluice_program *program,
                                         const char *name,
                                         sluice_element_type element,
                                         uint32_t rank, const int64_t *shape,
                                         const void *data, size_t bytes);

/* Binds buffer `name` to what the last run left in it, where it is (nothing
 * is read back or uploaded), for the next run: a progressive renderer's film
 * accumulates pass after pass. An error before any run, after binding the
 * buffer again, and for a uniform. */
sluice_status sluice_program_keep_result(sluice_program *program,
                                         const char *name);

/* Sets uniform `name`: an integer sets an i32 or i64 uniform (it must fit), a
 * float an f32 (rounded) or f64 one. */
sluice_status sluice_program_set_uniform_i32(sluice_program *program,
                                             const char *name, int32_t value);
sluice_status sluice_program_set_uniform_i64(sluice_program *program,
                                             const char *name, int64_t value);
sluice_status sluice_program_set_uniform_f32(sluice_program *program,
                                             const char *name, float value);
sluice_status sluice_program_set_uniform_f64(sluice_program *program,
                                             const char *name, double value);

/* Runs `lanes` lanes (1 .. 2^24); `options` NULL: the defaults. `report` may
 * be NULL. Returns the run's status (the report's too). Each run starts from
 * the bound values. */
sluice_status sluice_program_run(sluice_program *program, uint32_t lanes,
                                 const sluice_run_options *options,
                                 sluice_run_report *report);

/* Stage `index` of the last run's statistics. */
sluice_status sluice_program_stage_statistics(sluice_program *program,
                                              uint32_t index,
                                              sluice_stage_statistics *out);

/* Copies binding `name` (what the last run left there; before a run, the
 * bound value) into `data`, which holds `capacity` bytes. `element` must be
 * the binding's element type. *size (if not NULL) receives the binding's
 * byte size; a `capacity` below it is an error, except that data NULL with
 * capacity 0 only asks for the size. */
sluice_status sluice_program_read_binding(sluice_program *program,
                                          const char *name,
                                          sluice_element_type element,
                                          void *data, size_t capacity,
                                          size_t *size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* SLUICE_RUNTIME_PROGRAM_SLUICE_PROGRAM_H */
