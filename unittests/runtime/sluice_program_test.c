/*===- sluice_program_test.c - The C API of compiled programs, from C -----===//
 *
 * Compiled as C (C11, no C++): runs examples/shadow_pool.mlir, compiled at
 * build time by sluice_add_program, through sluice_program.h on the CPU and,
 * when there is a Vulkan device, on Vulkan, and checks the film against the
 * closed form in the example's header, computed here:
 *   light(p, s) = (7 p + s + shift) mod lights,  s = 0, 1
 *   film[p mod 4096] += (occluders[light] == 0) * (light + 1)
 * and every error's status and message. Exit 0 when every check passes,
 * 1 otherwise (each failure is printed).
 *
 *===----------------------------------------------------------------------===*/
#include "sluice/runtime/program/sluice_program.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILM 4096
#define LIGHTS 61
#define SHIFT 5

static int failures = 0;

#define CHECK(condition)                                                       \
  do {                                                                         \
    if (!(condition)) {                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,         \
              #condition);                                                     \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* The call returned `status` and the handle's last error is `message`. */
#define CHECK_ERROR(call, status, message)                                     \
  do {                                                                         \
    sluice_status got_ = (call);                                               \
    if (got_ != (status) ||                                                    \
        strcmp(sluice_program_last_error(program), (message)) != 0) {          \
      fprintf(stderr,                                                          \
              "%s:%d: %s\n  returned %d (%s), expected %d\n  message: %s\n"    \
              "  expected: %s\n",                                              \
              __FILE__, __LINE__, #call, (int)got_, sluice_status_name(got_),  \
              (int)(status), sluice_program_last_error(program), (message));   \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static int32_t occluders[LIGHTS];

static void expected_film(uint32_t lanes, int32_t *film) {
  memset(film, 0, FILM * sizeof *film);
  for (uint32_t p = 0; p < lanes; ++p)
    for (uint32_t s = 0; s < 2; ++s) {
      uint32_t light = (7 * p + s + SHIFT) % LIGHTS;
      if (occluders[light] == 0)
        film[p % FILM] += (int32_t)(light + 1);
    }
}

/* Binds the inputs, runs `lanes` lanes and checks the film and the report. */
static void run_and_check(sluice_program *program, uint32_t lanes,
                          const sluice_run_options *options) {
  int64_t shape[1] = {LIGHTS};
  CHECK(sluice_program_bind_buffer(program, "occluders", SLUICE_ELEMENT_I32, 1,
                                   shape, occluders, sizeof occluders) ==
        SLUICE_OK);
  CHECK(sluice_program_set_uniform_i32(program, "lights", LIGHTS) == SLUICE_OK);
  CHECK(sluice_program_set_uniform_i64(program, "shift", SHIFT) == SLUICE_OK);
  CHECK(strcmp(sluice_program_last_error(program), "") == 0);

  sluice_run_report report;
  sluice_status status = sluice_program_run(program, lanes, options, &report);
  if (status != SLUICE_OK)
    fprintf(stderr, "run: %s\n", sluice_program_last_error(program));
  CHECK(status == SLUICE_OK);
  CHECK(report.status == SLUICE_OK);
  CHECK(report.lanes == lanes);
  CHECK(report.lanes_finished == lanes);
  CHECK(report.seconds >= 0);
  CHECK(report.stage_count == 5);

  /* Every ray is intersected; the unoccluded ones are shaded. */
  uint64_t shaded = 0;
  for (uint32_t p = 0; p < lanes; ++p)
    for (uint32_t s = 0; s < 2; ++s)
      shaded += occluders[(7 * p + s + SHIFT) % LIGHTS] == 0;
  sluice_stage_statistics stage;
  CHECK(sluice_program_stage_statistics(program, 3, &stage) == SLUICE_OK);
  CHECK(strcmp(stage.name, "shadow.intersect") == 0);
  CHECK(stage.invocations == 2ull * lanes);
  CHECK(sluice_program_stage_statistics(program, 4, &stage) == SLUICE_OK);
  CHECK(strcmp(stage.name, "shadow.shade") == 0);
  CHECK(stage.invocations == shaded);
  CHECK(stage.items_released == shaded);
  CHECK(sluice_program_stage_statistics(program, 1, &stage) == SLUICE_OK);
  CHECK(strcmp(stage.name, "bounce") == 0);
  CHECK(stage.items_published == 2ull * lanes);

  static int32_t film[FILM], want[FILM];
  size_t size = 0;
  CHECK(sluice_program_read_binding(program, "film", SLUICE_ELEMENT_I32, film,
                                    sizeof film, &size) == SLUICE_OK);
  CHECK(size == sizeof film);
  expected_film(lanes, want);
  for (int q = 0; q < FILM; ++q)
    if (film[q] != want[q]) {
      fprintf(stderr, "film[%d] = %d, expected %d (%u lanes)\n", q, film[q],
              want[q], lanes);
      ++failures;
      break;
    }
}

static void check_bindings(sluice_program *program) {
  CHECK(strcmp(sluice_program_name(program), "path") == 0);
  CHECK(sluice_program_binding_count(program) == 4);
  sluice_binding_info info;
  CHECK(sluice_program_binding(program, 0, &info) == SLUICE_OK);
  CHECK(strcmp(info.name, "occluders") == 0);
  CHECK(info.kind == SLUICE_BINDING_BUFFER);
  CHECK(info.element == SLUICE_ELEMENT_I32);
  CHECK(info.rank == 1 && info.shape[0] == -1);
  CHECK(info.access == SLUICE_ACCESS_READONLY);
  CHECK(info.read && !info.written && info.required);
  CHECK(sluice_program_binding(program, 1, &info) == SLUICE_OK);
  CHECK(strcmp(info.name, "film") == 0);
  CHECK(info.rank == 1 && info.shape[0] == FILM);
  CHECK(info.access == SLUICE_ACCESS_WRITEONLY);
  CHECK(info.atomic && !info.required);
  CHECK(sluice_program_binding(program, 2, &info) == SLUICE_OK);
  CHECK(strcmp(info.name, "lights") == 0);
  CHECK(info.kind == SLUICE_BINDING_UNIFORM && info.rank == 0);
  CHECK_ERROR(sluice_program_binding(program, 4, &info),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding index 4 is out of range: @path has 4 "
              "bindings");
}

static void check_errors(sluice_program *program) {
  int64_t shape[1] = {LIGHTS};
  int64_t film_shape[1] = {FILM};
  float floats[LIGHTS] = {0};
  CHECK_ERROR(sluice_program_bind_buffer(program, "flim", SLUICE_ELEMENT_I32, 1,
                                         shape, occluders, sizeof occluders),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: 'flim' is not a binding of @path; its "
              "bindings are: occluders film lights shift");
  CHECK_ERROR(sluice_program_bind_buffer(program, "occluders",
                                         SLUICE_ELEMENT_F32, 1, shape, floats,
                                         sizeof floats),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'occluders' (i32[?], buffer "
              "readonly) holds i32, but was given f32");
  CHECK_ERROR(sluice_program_bind_buffer(program, "film", SLUICE_ELEMENT_I32, 1,
                                         shape, occluders, sizeof occluders),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'film' (i32[4096], buffer writeonly) "
              "has shape 4096, but was given shape 61");
  CHECK_ERROR(sluice_program_bind_buffer(program, "film", SLUICE_ELEMENT_I32, 1,
                                         film_shape, occluders,
                                         sizeof occluders),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'film' (i32[4096], buffer writeonly) "
              "was given 244 bytes for 4096 elements of shape 4096");
  CHECK_ERROR(sluice_program_bind_buffer(program, "lights", SLUICE_ELEMENT_I32,
                                         0, NULL, occluders, 4),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'lights' is a uniform: set it with "
              "sluice_program_set_uniform_*");
  CHECK_ERROR(sluice_program_bind_buffer(program, "occluders",
                                         (sluice_element_type)9, 1, shape,
                                         occluders, sizeof occluders),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_bind_buffer: element 9 is not "
              "a sluice_element_type");
  CHECK_ERROR(sluice_program_bind_buffer(program, NULL, SLUICE_ELEMENT_I32, 1,
                                         shape, occluders, sizeof occluders),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_bind_buffer: name is NULL");
  CHECK_ERROR(sluice_program_bind_buffer(program, "occluders",
                                         SLUICE_ELEMENT_I32, 1, NULL,
                                         occluders, sizeof occluders),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_bind_buffer: shape is NULL for "
              "rank 1");
  CHECK_ERROR(sluice_program_bind_buffer(program, "occluders",
                                         SLUICE_ELEMENT_I32, 1, shape, NULL,
                                         sizeof occluders),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_bind_buffer: data is NULL for "
              "244 bytes");
  CHECK_ERROR(sluice_program_set_uniform_f32(program, "lights", 2.5f),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'lights' (i32, uniform) is i32, but "
              "was set a float (f32)");
  CHECK_ERROR(sluice_program_set_uniform_f64(program, "shift", 1.0),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'shift' (i32, uniform) is i32, but "
              "was set a float (f64)");
  CHECK_ERROR(sluice_program_set_uniform_i64(program, "lights",
                                             (int64_t)1 << 40),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'lights' (i32, uniform) cannot hold "
              "1099511627776, which does not fit in i32");
  CHECK_ERROR(sluice_program_set_uniform_i32(program, "film", 1),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'film' (i32[4096], buffer writeonly) "
              "is a buffer: bind it with bind");
  CHECK_ERROR(sluice_program_set_uniform_i32(program, NULL, 1),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_set_uniform_i32: name is NULL");

  static int32_t film[FILM];
  size_t size = 0;
  CHECK_ERROR(sluice_program_read_binding(program, "film", SLUICE_ELEMENT_I32,
                                          film, 100, &size),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'film' holds 16384 bytes (4096 "
              "elements of i32), but the buffer has 100");
  CHECK(size == sizeof film);
  size = 0;
  CHECK(sluice_program_read_binding(program, "film", SLUICE_ELEMENT_I32, NULL,
                                    0, &size) == SLUICE_OK);
  CHECK(size == sizeof film);
  CHECK_ERROR(sluice_program_read_binding(program, "film", SLUICE_ELEMENT_I32,
                                          NULL, 64, &size),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'film' holds 16384 bytes (4096 "
              "elements of i32), but the buffer has 64 and is NULL");
  CHECK_ERROR(sluice_program_read_binding(program, "film", SLUICE_ELEMENT_F32,
                                          film, sizeof film, &size),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'film' holds i32, but was read as f32");
  CHECK_ERROR(sluice_program_read_binding(program, "flim", SLUICE_ELEMENT_I32,
                                          film, sizeof film, &size),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: 'flim' is not a binding of @path; its "
              "bindings are: occluders film lights shift");
  CHECK_ERROR(sluice_program_read_binding(program, "film",
                                          (sluice_element_type)-1, film,
                                          sizeof film, &size),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_read_binding: element -1 is "
              "not a sluice_element_type");
  CHECK_ERROR(sluice_program_read_binding(program, NULL, SLUICE_ELEMENT_I32,
                                          film, sizeof film, &size),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_read_binding: name is NULL");

  sluice_run_options options;
  sluice_run_options_init(&options);
  options.schedule = (sluice_schedule)7;
  CHECK_ERROR(sluice_program_run(program, 1, &options, NULL),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_run_options.schedule is 7, not a "
              "sluice_schedule");
  CHECK_ERROR(sluice_program_run(program, 0, NULL, NULL),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: RunOptions::lanes must be in [1, 16777216], "
              "got 0");
  sluice_stage_statistics stage;
  CHECK_ERROR(sluice_program_stage_statistics(program, 9, &stage),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: stage index 9 is out of range: the last run "
              "has 5 stages");
  CHECK_ERROR(sluice_program_stage_statistics(program, 0, NULL),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_stage_statistics: out is NULL");
  CHECK_ERROR(sluice_program_binding(program, 0, NULL),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_binding: out is NULL");
}

/* Loading errors: the handle exists and says why. */
static void check_load_errors(void) {
  sluice_program *program = NULL;
  CHECK_ERROR(sluice_program_load_file(SLUICE_TEST_SHADOW_ARTIFACT, "metal", 0,
                                       &program),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: unknown backend 'metal'; the backends are: "
              "cpu, cpu-staged, vulkan, hip");
  CHECK(program != NULL);
  CHECK_ERROR(sluice_program_set_uniform_i32(program, "lights", 1),
              SLUICE_INVALID_STATE,
              "invalid state: this program failed to load: invalid argument: "
              "unknown backend 'metal'; the backends are: cpu, cpu-staged, vulkan, hip");
  CHECK(sluice_program_binding_count(program) == 0);
  CHECK(strcmp(sluice_program_name(program), "") == 0);
  CHECK(sluice_program_run(program, 1, NULL, NULL) == SLUICE_INVALID_STATE);
  sluice_program_destroy(program);

  static const unsigned char junk[3] = {1, 2, 3};
  program = NULL;
  CHECK(sluice_program_load_memory(junk, sizeof junk, "cpu", 0, &program) ==
        SLUICE_INVALID_DESCRIPTOR);
  CHECK(strstr(sluice_program_last_error(program), "<memory>") != NULL);
  sluice_program_destroy(program);
  program = NULL;
  CHECK_ERROR(sluice_program_load_memory(NULL, 16, "cpu", 0, &program),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_load_memory: bytes is NULL, "
              "size is 16");
  sluice_program_destroy(program);
  program = NULL;
  CHECK_ERROR(sluice_program_load_memory(junk, 3, NULL, 0, &program),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_load_memory: the backend name "
              "is NULL");
  sluice_program_destroy(program);
  program = NULL;
  CHECK_ERROR(sluice_program_load_file(NULL, "cpu", 0, &program),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_load_file: the path is NULL");
  sluice_program_destroy(program);
  CHECK(sluice_program_load_file("x", "cpu", 0, NULL) == SLUICE_INVALID_ARGUMENT);
  CHECK(strcmp(sluice_program_last_error(NULL),
               "no program (the handle is NULL)") == 0);
  sluice_program_destroy(NULL);
}

/* After a run of `lanes` lanes: keeping the film, a second run adds its
 * film to the first's (the closed form twice). */
static void check_kept(sluice_program *program, uint32_t lanes) {
  CHECK_ERROR(sluice_program_keep_result(program, NULL),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: sluice_program_keep_result: name is NULL");
  CHECK_ERROR(sluice_program_keep_result(program, "shift"),
              SLUICE_INVALID_ARGUMENT,
              "invalid argument: binding 'shift' (i32, uniform) is a uniform: "
              "a run leaves nothing in it to keep");
  CHECK(sluice_program_keep_result(program, "film") == SLUICE_OK);
  CHECK(sluice_program_run(program, lanes, NULL, NULL) == SLUICE_OK);
  static int32_t film[FILM], want[FILM];
  CHECK(sluice_program_read_binding(program, "film", SLUICE_ELEMENT_I32, film,
                                    sizeof film, NULL) == SLUICE_OK);
  expected_film(lanes, want);
  for (int q = 0; q < FILM; ++q)
    if (film[q] != 2 * want[q]) {
      fprintf(stderr, "kept film[%d] = %d, expected %d\n", q, film[q],
              2 * want[q]);
      ++failures;
      break;
    }
}

/* The artifact's bytes, read with stdio (malloc'd; *size its length). */
static unsigned char *read_file(const char *path, size_t *size) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  fseek(file, 0, SEEK_END);
  long length = ftell(file);
  fseek(file, 0, SEEK_SET);
  unsigned char *bytes = malloc(length > 0 ? (size_t)length : 1);
  *size = bytes ? fread(bytes, 1, (size_t)length, file) : 0;
  fclose(file);
  return bytes;
}

int main(void) {
  for (int l = 0; l < LIGHTS; ++l)
    occluders[l] = (l * 5 + 1) % 3 == 0;

  CHECK(strcmp(sluice_backend_names(), "cpu, cpu-staged, vulkan, hip") == 0);
  CHECK(strcmp(sluice_status_name(SLUICE_DEVICE_UNAVAILABLE),
               "device unavailable") == 0);
  CHECK(strcmp(sluice_status_name((sluice_status)99), "unknown status") == 0);
  CHECK(sluice_element_size(SLUICE_ELEMENT_F64) == 8);
  CHECK(sluice_element_size(SLUICE_ELEMENT_I32) == 4);
  check_load_errors();

  /* The CPU, from the file. */
  sluice_program *program = NULL;
  sluice_status status =
      sluice_program_load_file(SLUICE_TEST_SHADOW_ARTIFACT, "cpu", 4096,
                               &program);
  if (status != SLUICE_OK) {
    fprintf(stderr, "cpu: %s\n", sluice_program_last_error(program));
    sluice_program_destroy(program);
    return 1;
  }
  check_bindings(program);
  run_and_check(program, 4096, NULL);
  check_kept(program, 4096);
  check_errors(program);
  sluice_run_options options;
  sluice_run_options_init(&options);
  CHECK(options.frame_pool == 256 && options.partial_admission == 1 &&
        options.schedule == SLUICE_SCHEDULE_WAVEFRONT && !options.trace_path);
  options.schedule = SLUICE_SCHEDULE_STATE_MACHINE;
  options.workers = 2;
  run_and_check(program, 5000, &options); /* more lanes: reloaded */
  sluice_program_destroy(program);

  /* Vulkan, from memory. */
  size_t size = 0;
  unsigned char *bytes = read_file(SLUICE_TEST_SHADOW_ARTIFACT, &size);
  CHECK(bytes != NULL);
  program = NULL;
  status = sluice_program_load_memory(bytes, size, "vulkan", 4096, &program);
  free(bytes); /* the handle holds a copy */
  if (status == SLUICE_DEVICE_UNAVAILABLE) {
    printf("vulkan: skipped (%s)\n", sluice_program_last_error(program));
  } else if (status != SLUICE_OK) {
    fprintf(stderr, "vulkan: %s\n", sluice_program_last_error(program));
    ++failures;
  } else {
    run_and_check(program, 4096, NULL);
    sluice_run_options_init(&options);
    options.schedule = SLUICE_SCHEDULE_STATE_MACHINE;
    /* The state-machine schedule (the compiled megakernel) on Vulkan: the
     * same closed-form film. */
    run_and_check(program, 4096, &options);
    printf("vulkan: film matches\n");
  }
  sluice_program_destroy(program);

  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("sluice_program C API: every check passed\n");
  return 0;
}
