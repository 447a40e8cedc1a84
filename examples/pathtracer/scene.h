//===- scene.h - The path tracer's scene: load, BVH, bindings ---*- C++ -*-===//
//
// The host side of the path tracer (docs/pathtracer.md): a JSON scene with
// OBJ meshes is loaded and checked (section 1), its triangles get a bounding
// volume hierarchy, and everything is flattened into the bindings of @path
// (section 2), which are bound into a runtime Program or written as .npy
// files for sluice-run / sluice-run-artifact. No MLIR: this links the runtime
// only.
//
//   Scene scene;
//   Status status = loadScene("cornell-box.json", scene);
//   Bvh bvh;
//   status = buildBvh(scene.triangles, bvh);
//   std::vector<NamedBuffer> bindings;
//   status = flattenScene(scene, bvh, {256, 256, 0}, bindings);
//   status = checkPathBindings(program.bindings());
//   status = bindAll(program, bindings);
//
// Every error is an InvalidArgument Status whose message starts with the
// scene file (and names the JSON key, the OBJ file and line where known).
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_EXAMPLES_PATHTRACER_SCENE_H
#define SLUICE_EXAMPLES_PATHTRACER_SCENE_H

#include "sluice/runtime/admission/status.h"
#include "sluice/runtime/program/host_buffer.h"
#include "sluice/runtime/program/session.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sluice::pathtracer {

using runtime::Status;

struct Vec3 {
  float x = 0, y = 0, z = 0;
  friend bool operator==(const Vec3 &, const Vec3 &) = default;
};

// The values of binding mat_kind.
enum class MaterialKind : int32_t { Diffuse = 0, Mirror = 1, Glass = 2 };

// The procedural texture of a diffuse material (docs/pathtracer.md section
// 9), the last value of its mat_data record.
enum class TexturePattern : int32_t {
  Fbm = 0,
  Turbulence = 1,
  Ridged = 2,
  Blocks = 3
};

struct Material {
  std::string name;
  MaterialKind kind = MaterialKind::Diffuse;
  Vec3 albedo{1, 1, 1};
  Vec3 emission{0, 0, 0};
  float ior = 1.5f;
  TexturePattern pattern = TexturePattern::Fbm;
  bool emits() const {
    return emission.x > 0 || emission.y > 0 || emission.z > 0;
  }
};

struct Camera {
  Vec3 eye, lookAt, up;
  float fovYDegrees = 40;
};

struct Quad {
  Vec3 corner, edgeU, edgeV;
  int32_t material = 0;
};

struct Sphere {
  Vec3 center;
  float radius = 0;
  int32_t material = 0;
};

struct Triangle {
  Vec3 v0, v1, v2;
  int32_t material = 0;
};

struct Scene {
  std::string path; // the scene file, as given
  Camera camera;
  std::vector<Material> materials; // in file order; index = material id
  std::vector<Quad> quads;
  std::vector<Sphere> spheres;
  // Every mesh's faces, in mesh order (the quads are tested as
  // parallelograms, not in the BVH: section 4).
  std::vector<Triangle> triangles;
  std::vector<uint32_t>
      lights; // indices into quads: those whose material emits
};

// Reads and checks the scene file `path` (section 1 "Errors"). On failure
// `out` is unspecified.
Status loadScene(const std::string &path, Scene &out);

//===----------------------------------------------------------------------===//
// BVH
//===----------------------------------------------------------------------===//

inline constexpr uint32_t kMaxLeafTriangles = 4;
// The longest root-to-leaf path, in nodes (the root alone is depth 1): a
// traversal stack of 32 entries suffices, even one that pushes both
// children of every inner node it visits.
inline constexpr uint32_t kMaxBvhDepth = 32;

struct BvhNode {
  float bounds[6] = {0, 0, 0, 0, 0, 0}; // min x, y, z, max x, y, z
  // count == 0: inner node, children first and first + 1;
  // count > 0: leaf of triangles first .. first + count - 1 (BVH order).
  int32_t first = 0, count = 0;
};

struct Bvh {
  std::vector<BvhNode> nodes; // node 0 is the root
  // order[i]: the index into the input triangles of BVH slot i.
  std::vector<uint32_t> order;
  uint32_t depth = 0; // in nodes, as kMaxBvhDepth
};

// Binned SAH over the triangle centroids, leaves of at most
// kMaxLeafTriangles, depth at most kMaxBvhDepth (where SAH would go deeper,
// the builder splits at the median instead). An empty input or a tree that
// still violates a limit is an InvalidArgument error.
Status buildBvh(std::span<const Triangle> triangles, Bvh &out);

//===----------------------------------------------------------------------===//
// The bindings of @path (section 2)
//===----------------------------------------------------------------------===//

// The most octaves of the procedural texture (section 9).
inline constexpr uint32_t kMaxTextureOctaves = 16;

struct Raster {
  uint32_t width = 256, height = 256;
  uint32_t seed = 0;           // bound as the i32 of the same bits
  uint32_t textureOctaves = 0; // section 9; 0: the plain scene
};

struct NamedBuffer {
  std::string name;
  runtime::HostBuffer value; // shape {n} for a buffer, {} for a uniform
};

// The camera vectors of section 2, for an image of width x height.
struct CameraFrame {
  Vec3 eye, forward, right, up;
};
CameraFrame cameraFrame(const Camera &camera, uint32_t width, uint32_t height);

// Every binding of section 2, in the table's order: the buffers, then the
// uniforms (film zeroed, sample_base 0). Triangles are in BVH order.
Status flattenScene(const Scene &scene, const Bvh &bvh, const Raster &raster,
                    std::vector<NamedBuffer> &out);

// Checks that a program's bindings are exactly those of section 2: every
// name present, of the right kind (buffer or uniform) and element type, the
// buffers one-dimensional, and no other binding.
Status checkPathBindings(std::span<const runtime::BindingInfo> bindings);

// Binds (or sets) every buffer in `bindings` into `program`.
Status bindAll(runtime::Program &program,
               std::span<const NamedBuffer> bindings);

// Writes every buffer as DIR/NAME.npy, and DIR/args.txt: the arguments that
// give a runner those bindings (--bind NAME=DIR/NAME.npy for a buffer,
// --set NAME=VALUE for a uniform), one per line. DIR must exist.
Status writeBindings(const std::string &dir,
                     std::span<const NamedBuffer> bindings);

} // namespace sluice::pathtracer

#endif // SLUICE_EXAMPLES_PATHTRACER_SCENE_H
