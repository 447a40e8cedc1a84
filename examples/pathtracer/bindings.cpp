//===- bindings.cpp - A scene as the bindings of @path --------------------===//
//
// docs/pathtracer.md section 2: the flattened scene, the check of a loaded
// program's bindings against that table, and the .npy files a runner binds.
//
//===----------------------------------------------------------------------===//

#include "scene.h"

#include "sluice/runtime/program/bindings.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>

namespace sluice::pathtracer {
namespace {

using runtime::BindingInfo;
using runtime::BindingKind;
using runtime::ElementType;
using runtime::HostBuffer;

Status invalid(std::string message) {
  return Status::error(runtime::ErrorKind::InvalidArgument, std::move(message));
}

Vec3 sub(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 scaled(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
Vec3 normalize(Vec3 a) {
  float length = std::sqrt(a.x * a.x + a.y * a.y + a.z * a.z);
  return {a.x / length, a.y / length, a.z / length};
}

// One row of the binding table of section 2.
struct PathBinding {
  const char *name;
  BindingKind kind;
  ElementType element;
};

constexpr PathBinding kPathBindings[] = {
    {"tri_verts", BindingKind::Buffer, ElementType::F32},
    {"tri_mat", BindingKind::Buffer, ElementType::I32},
    {"bvh_bounds", BindingKind::Buffer, ElementType::F32},
    {"bvh_links", BindingKind::Buffer, ElementType::I32},
    {"spheres", BindingKind::Buffer, ElementType::F32},
    {"sphere_mat", BindingKind::Buffer, ElementType::I32},
    {"quads", BindingKind::Buffer, ElementType::F32},
    {"quad_mat", BindingKind::Buffer, ElementType::I32},
    {"mat_kind", BindingKind::Buffer, ElementType::I32},
    {"mat_data", BindingKind::Buffer, ElementType::F32},
    {"lights", BindingKind::Buffer, ElementType::F32},
    {"film", BindingKind::Buffer, ElementType::I64},
    {"width", BindingKind::Uniform, ElementType::I32},
    {"height", BindingKind::Uniform, ElementType::I32},
    {"sample_base", BindingKind::Uniform, ElementType::I32},
    {"seed", BindingKind::Uniform, ElementType::I32},
    {"cam_eye_x", BindingKind::Uniform, ElementType::F32},
    {"cam_eye_y", BindingKind::Uniform, ElementType::F32},
    {"cam_eye_z", BindingKind::Uniform, ElementType::F32},
    {"cam_fwd_x", BindingKind::Uniform, ElementType::F32},
    {"cam_fwd_y", BindingKind::Uniform, ElementType::F32},
    {"cam_fwd_z", BindingKind::Uniform, ElementType::F32},
    {"cam_right_x", BindingKind::Uniform, ElementType::F32},
    {"cam_right_y", BindingKind::Uniform, ElementType::F32},
    {"cam_right_z", BindingKind::Uniform, ElementType::F32},
    {"cam_up_x", BindingKind::Uniform, ElementType::F32},
    {"cam_up_y", BindingKind::Uniform, ElementType::F32},
    {"cam_up_z", BindingKind::Uniform, ElementType::F32},
    {"texture_octaves", BindingKind::Uniform, ElementType::I32},
};

template <typename T>
HostBuffer buffer(ElementType element, const std::vector<T> &data) {
  HostBuffer out;
  out.element = element;
  out.shape = {int64_t(data.size())};
  out.bytes.resize(data.size() * sizeof(T));
  if (!data.empty())
    std::memcpy(out.bytes.data(), data.data(), out.bytes.size());
  return out;
}

template <typename T> HostBuffer scalar(ElementType element, T value) {
  HostBuffer out;
  out.element = element;
  out.bytes.resize(sizeof(T));
  std::memcpy(out.bytes.data(), &value, sizeof(T));
  return out;
}

void push(std::vector<float> &out, Vec3 v) {
  out.insert(out.end(), {v.x, v.y, v.z});
}

std::string kindName(BindingKind kind) {
  return kind == BindingKind::Uniform ? "a uniform" : "a buffer";
}

// The value of a scalar HostBuffer, as a runner's --set parses it back.
std::string scalarText(const HostBuffer &value) {
  char text[64];
  std::to_chars_result result{};
  if (value.element == ElementType::F32) {
    float v;
    std::memcpy(&v, value.bytes.data(), 4);
    result = std::to_chars(text, text + sizeof text, v);
  } else {
    int32_t v;
    std::memcpy(&v, value.bytes.data(), 4);
    result = std::to_chars(text, text + sizeof text, v);
  }
  return std::string(text, result.ptr);
}

} // namespace

CameraFrame cameraFrame(const Camera &camera, uint32_t width, uint32_t height) {
  CameraFrame frame;
  frame.eye = camera.eye;
  frame.forward = normalize(sub(camera.lookAt, camera.eye));
  Vec3 rightUnit = normalize(cross(frame.forward, camera.up));
  float tanHalf =
      float(std::tan(double(camera.fovYDegrees) * (std::numbers::pi / 360.0)));
  // (right_unit * tan * width) / height, in the formula's order.
  Vec3 r = scaled(scaled(rightUnit, tanHalf), float(width));
  frame.right = {r.x / float(height), r.y / float(height), r.z / float(height)};
  frame.up = scaled(cross(rightUnit, frame.forward), tanHalf);
  return frame;
}

Status flattenScene(const Scene &scene, const Bvh &bvh, const Raster &raster,
                    std::vector<NamedBuffer> &out) {
  out.clear();
  if (raster.width == 0 || raster.height == 0)
    return invalid(scene.path + ": the image is " +
                   std::to_string(raster.width) + " x " +
                   std::to_string(raster.height) +
                   " pixels; both sides must be at least 1");
  uint64_t pixels = uint64_t(raster.width) * raster.height;
  if (raster.width > uint32_t(std::numeric_limits<int32_t>::max()) ||
      raster.height > uint32_t(std::numeric_limits<int32_t>::max()) ||
      pixels > uint64_t(std::numeric_limits<int32_t>::max()))
    return invalid(scene.path + ": the image of " +
                   std::to_string(raster.width) + " x " +
                   std::to_string(raster.height) +
                   " pixels does not fit in i32 pixel indices");
  if (raster.textureOctaves > kMaxTextureOctaves)
    return invalid("texture_octaves must be in [0, " +
                   std::to_string(kMaxTextureOctaves) +
                   "] (docs/pathtracer.md section 9), got " +
                   std::to_string(raster.textureOctaves));
  if (bvh.order.size() != scene.triangles.size() ||
      bvh.nodes.empty() != scene.triangles.empty())
    return invalid(scene.path + ": the BVH holds " +
                   std::to_string(bvh.order.size()) + " triangles, the scene " +
                   std::to_string(scene.triangles.size()));

  std::vector<float> triVerts;
  std::vector<int32_t> triMat;
  triVerts.reserve(9 * bvh.order.size());
  triMat.reserve(bvh.order.size());
  for (uint32_t index : bvh.order) {
    const Triangle &t = scene.triangles[index];
    push(triVerts, t.v0);
    push(triVerts, t.v1);
    push(triVerts, t.v2);
    triMat.push_back(t.material);
  }
  std::vector<float> bounds;
  std::vector<int32_t> links;
  for (const BvhNode &node : bvh.nodes) {
    bounds.insert(bounds.end(), node.bounds, node.bounds + 6);
    links.insert(links.end(), {node.first, node.count});
  }
  std::vector<float> spheres;
  std::vector<int32_t> sphereMat;
  for (const Sphere &s : scene.spheres) {
    spheres.insert(spheres.end(),
                   {s.center.x, s.center.y, s.center.z, s.radius});
    sphereMat.push_back(s.material);
  }
  std::vector<float> quads;
  std::vector<int32_t> quadMat;
  for (const Quad &q : scene.quads) {
    push(quads, q.corner);
    push(quads, q.edgeU);
    push(quads, q.edgeV);
    quadMat.push_back(q.material);
  }
  std::vector<int32_t> matKind;
  std::vector<float> matData;
  for (const Material &m : scene.materials) {
    matKind.push_back(int32_t(m.kind));
    push(matData, m.albedo);
    push(matData, m.emission);
    matData.insert(matData.end(), {m.ior, float(int32_t(m.pattern))});
  }
  std::vector<float> lights;
  for (uint32_t q : scene.lights) {
    const Quad &quad = scene.quads[q];
    push(lights, quad.corner);
    push(lights, quad.edgeU);
    push(lights, quad.edgeV);
    push(lights, scene.materials[size_t(quad.material)].emission);
  }
  std::vector<int64_t> film(3 * pixels, 0);

  auto add = [&](const char *name, HostBuffer value) {
    out.push_back({name, std::move(value)});
  };
  add("tri_verts", buffer(ElementType::F32, triVerts));
  add("tri_mat", buffer(ElementType::I32, triMat));
  add("bvh_bounds", buffer(ElementType::F32, bounds));
  add("bvh_links", buffer(ElementType::I32, links));
  add("spheres", buffer(ElementType::F32, spheres));
  add("sphere_mat", buffer(ElementType::I32, sphereMat));
  add("quads", buffer(ElementType::F32, quads));
  add("quad_mat", buffer(ElementType::I32, quadMat));
  add("mat_kind", buffer(ElementType::I32, matKind));
  add("mat_data", buffer(ElementType::F32, matData));
  add("lights", buffer(ElementType::F32, lights));
  add("film", buffer(ElementType::I64, film));
  add("width", scalar(ElementType::I32, int32_t(raster.width)));
  add("height", scalar(ElementType::I32, int32_t(raster.height)));
  add("sample_base", scalar(ElementType::I32, int32_t(0)));
  int32_t seed;
  std::memcpy(&seed, &raster.seed, 4);
  add("seed", scalar(ElementType::I32, seed));
  CameraFrame frame = cameraFrame(scene.camera, raster.width, raster.height);
  const char *prefixes[] = {"cam_eye", "cam_fwd", "cam_right", "cam_up"};
  const Vec3 *vectors[] = {&frame.eye, &frame.forward, &frame.right, &frame.up};
  for (int v = 0; v < 4; ++v) {
    std::string prefix = prefixes[v];
    out.push_back({prefix + "_x", scalar(ElementType::F32, vectors[v]->x)});
    out.push_back({prefix + "_y", scalar(ElementType::F32, vectors[v]->y)});
    out.push_back({prefix + "_z", scalar(ElementType::F32, vectors[v]->z)});
  }
  add("texture_octaves",
      scalar(ElementType::I32, int32_t(raster.textureOctaves)));
  return Status::success();
}

Status checkPathBindings(std::span<const BindingInfo> bindings) {
  for (const PathBinding &expected : kPathBindings) {
    const BindingInfo *found = nullptr;
    for (const BindingInfo &info : bindings)
      if (info.name == expected.name)
        found = &info;
    std::string what = std::string("binding '") + expected.name + "'";
    if (!found)
      return invalid("the program has no " + what +
                     " (docs/pathtracer.md section 2)");
    if (found->kind != expected.kind)
      return invalid(what + " is " + kindName(found->kind) +
                     ", but docs/pathtracer.md section 2 makes it " +
                     kindName(expected.kind));
    if (found->element != expected.element)
      return invalid(what + " holds " +
                     std::string(runtime::elementTypeName(found->element)) +
                     ", but docs/pathtracer.md section 2 makes it " +
                     std::string(runtime::elementTypeName(expected.element)));
    if (expected.kind == BindingKind::Buffer &&
        (found->shape.size() != 1 || found->shape[0] >= 0))
      return invalid(what + " has shape " + runtime::shapeText(found->shape) +
                     ", but docs/pathtracer.md section 2 makes it one "
                     "dynamic dimension (memref<?x" +
                     std::string(runtime::elementTypeName(expected.element)) +
                     ">)");
  }
  for (const BindingInfo &info : bindings) {
    bool known = false;
    for (const PathBinding &expected : kPathBindings)
      known |= info.name == expected.name;
    if (!known)
      return invalid("binding '" + info.name +
                     "' of the program is not one of docs/pathtracer.md "
                     "section 2");
  }
  return Status::success();
}

Status bindAll(runtime::Program &program,
               std::span<const NamedBuffer> bindings) {
  for (const NamedBuffer &binding : bindings)
    if (Status status = program.bind(binding.name, binding.value); !status.ok())
      return status;
  return Status::success();
}

Status writeBindings(const std::string &dir,
                     std::span<const NamedBuffer> bindings) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return invalid(dir + ": not a directory");
  std::filesystem::path root(dir);
  std::string args;
  for (const NamedBuffer &binding : bindings) {
    if (binding.value.shape.empty()) {
      args += "--set " + binding.name + "=" + scalarText(binding.value) + "\n";
      continue;
    }
    std::string path = (root / (binding.name + ".npy")).string();
    if (Status status = runtime::writeNpyFile(path, binding.value);
        !status.ok())
      return status;
    args += "--bind " + binding.name + "=" + path + "\n";
  }
  std::string argsPath = (root / "args.txt").string();
  std::ofstream out(argsPath);
  out << args;
  if (!out.flush())
    return invalid(argsPath + ": cannot write");
  return Status::success();
}

} // namespace sluice::pathtracer
