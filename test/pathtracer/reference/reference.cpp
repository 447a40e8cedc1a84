// pathtracer-reference: the independent reference renderer of the path tracer's
// test suite.
//
// Written from docs/pathtracer.md alone (section numbers below refer to it) and
// sharing no code with the Sluice renderer (examples/pathtracer/). It is
// deliberately plain: one path at a time, iteratively, in binary32 arithmetic
// evaluated left to right as the formulas of the specification are written,
// with floating-point contraction off (CMakeLists.txt), so that the only
// differences from another implementation of the same page come from the order
// of float operations (fma, libm's sin/cos/tan, a different but equivalent
// formula).
//
// The only acceleration structure is a median-split BVH over the meshes'
// triangles (the quads' triangles and the spheres are tested one by one). Ties
// between triangles at the same t go to the lowest triangle index, so the BVH
// gives bit-for-bit the nearest hit of the brute-force loop (--brute-force; a
// test checks the two films are identical).
//
//   pathtracer-reference --scene FILE.json --width W --height H --spp N [--seed
//   S]
//                        [--texture-octaves O] (section 9, 0 .. 16)
//                        [--threads T] --pfm OUT.pfm [--film OUT.npy]
//                        [--brute-force]
//                        [--perturb-sqrt] [--perturb-trig] [--ray-log OUT.npy]
//   pathtracer-reference --philox C0 C1 K          Philox-2x32-10 of counter
//   (C0, C1), key K pathtracer-reference --random SEED PIXEL SAMPLE BOUNCE DIM
//   the uniform of section 5
//
// --perturb-sqrt rounds every square root one ulp up and --perturb-trig the
// sine and cosine of the bounce direction (stand-ins for a GPU's sqrt, sin and
// cos); they exist only to measure how often a path flips
// (test/pathtracer/README.md).
//
// --ray-log writes, for every ray in pixel-row order, (kind: 0 a path ray, 1
// a shadow ray; the BVH nodes its walk visited; 1 when it meets the root box
// within [0.01, 1e30], else 0) as an int32 .npy of shape (rays, 3): the input
// of bench/pathtracer/traversal.py, which models how much a group of 32 lanes
// that walk together waits on its longest walk. Logging changes no sample.
//
// Exit status: 0 on success, 1 for a bad scene (the message names the file), 2
// for a bad command line or an output that cannot be written.

#include <nlohmann/json.hpp>
#include <tiny_obj_loader.h>
#include <xtensor/xadapt.hpp>
#include <xtensor/xnpy.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

static_assert(std::endian::native == std::endian::little,
              "the PFM and .npy writers write the host's bytes and both "
              "formats are little-endian");

namespace {

const char *const kTool = "pathtracer-reference";

// ---------------------------------------------------------------------------------------------
// Vectors (binary32).

struct Vec3 {
  float x = 0, y = 0, z = 0;
};

Vec3 operator+(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3 operator-(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 operator-(Vec3 a) { return {-a.x, -a.y, -a.z}; }
Vec3 operator*(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
Vec3 operator*(float s, Vec3 a) { return {s * a.x, s * a.y, s * a.z}; }
Vec3 operator/(Vec3 a, float s) { return {a.x / s, a.y / s, a.z / s}; }
Vec3 mul(Vec3 a, Vec3 b) { return {a.x * b.x, a.y * b.y, a.z * b.z}; }
float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
float component(Vec3 v, int axis) {
  return axis == 0 ? v.x : axis == 1 ? v.y : v.z;
}
Vec3 vmin(Vec3 a, Vec3 b) {
  return {std::min(a.x, b.x), std::min(a.y, b.y), std::min(a.z, b.z)};
}
Vec3 vmax(Vec3 a, Vec3 b) {
  return {std::max(a.x, b.x), std::max(a.y, b.y), std::max(a.z, b.z)};
}

bool gPerturbSqrt = false;

float sqrtf32(float x) {
  float r = std::sqrt(x);
  if (gPerturbSqrt && r > 0 && std::isfinite(r))
    r = std::nextafter(r, INFINITY);
  return r;
}
bool gPerturbTrig = false;
float cosf32(float x) {
  float r = std::cos(x);
  return gPerturbTrig ? std::nextafter(r, INFINITY) : r;
}
float sinf32(float x) {
  float r = std::sin(x);
  return gPerturbTrig ? std::nextafter(r, INFINITY) : r;
}

float length(Vec3 v) { return sqrtf32(dot(v, v)); }
Vec3 normalize(Vec3 v) { return v / length(v); }

const float kPi = 3.14159265358979323846f;

// ---------------------------------------------------------------------------------------------
// Section 5: Philox-2x32-10 and the uniform of (seed, pixel, sample, bounce,
// dimension).

struct Philox2 {
  uint32_t c0, c1;
};

Philox2 philox2x32_10(uint32_t c0, uint32_t c1, uint32_t key) {
  const uint32_t kM = 0xD256D193u, kW = 0x9E3779B9u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0)
      key += kW;
    uint64_t product = uint64_t(kM) * uint64_t(c0);
    uint32_t high = uint32_t(product >> 32), low = uint32_t(product);
    c0 = high ^ key ^ c1;
    c1 = low;
  }
  return {c0, c1};
}

float uniform01(uint32_t seed, uint32_t pixel, uint32_t sample, uint32_t bounce,
                uint32_t dim) {
  uint32_t word =
      philox2x32_10(pixel, sample * 256u + bounce * 16u + dim, seed).c0;
  return float(word >> 8) * 0x1p-24f;
}

// ---------------------------------------------------------------------------------------------
// The scene (section 1).

enum class Kind { Diffuse, Mirror, Glass };

// Section 9's patterns.
enum class Pattern { Fbm, Turbulence, Ridged, Blocks };

struct Material {
  Kind kind = Kind::Diffuse;
  Vec3 albedo{1, 1, 1};
  Vec3 emission{0, 0, 0};
  float ior = 1.5f;
  Pattern pattern = Pattern::Fbm;
};

struct Triangle {
  Vec3 v0, v1, v2;
  Vec3 e1, e2; // v1 - v0, v2 - v0
  Vec3 ng;     // normalize(cross(e1, e2))
  int material;
};

struct Sphere {
  Vec3 center;
  float radius;
  int material;
};

struct Light {
  Vec3 corner, edgeU, edgeV, radiance;
  Vec3 normal; // normalize(cross(edge_u, edge_v))
  float area;  // |cross(edge_u, edge_v)|
};

struct Camera {
  Vec3 eye, forward, right, up;
};

struct BvhNode {
  Vec3 lo, hi;
  uint32_t first = 0, count = 0; // count == 0: children first, first + 1
};

struct Scene {
  Camera camera;
  std::vector<Material> materials;
  std::vector<Triangle> triangles;
  std::vector<Sphere> spheres;
  std::vector<Light> lights;
  std::vector<BvhNode> bvh;
  std::vector<uint32_t> bvhOrder; // triangle indices (of meshes) in leaf order
  uint32_t quadTriangles =
      0; // triangles 0 .. quadTriangles-1 are the quads' (tested one by one)
  bool bruteForce = false;
};

struct SceneError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Reads the scene JSON; every error names `path` (and the key).
class SceneReader {
public:
  explicit SceneReader(std::string path) : path_(std::move(path)) {}

  [[noreturn]] void fail(const std::string &what) const {
    throw SceneError(path_ + ": " + what);
  }

  const nlohmann::json &require(const nlohmann::json &object,
                                const std::string &where,
                                const char *key) const {
    auto it = object.find(key);
    if (it == object.end())
      fail(where + ": missing key '" + key + "'");
    return *it;
  }

  float number(const nlohmann::json &value, const std::string &where) const {
    if (!value.is_number())
      fail(where + ": expected a number");
    double d = value.get<double>();
    if (!std::isfinite(d) || std::fabs(d) > 3.0e38)
      fail(where + ": not a finite binary32 number");
    return float(d);
  }

  Vec3 vec3(const nlohmann::json &value, const std::string &where) const {
    if (!value.is_array() || value.size() != 3)
      fail(where + ": expected an array of 3 numbers");
    return {number(value[0], where + "[0]"), number(value[1], where + "[1]"),
            number(value[2], where + "[2]")};
  }

  std::string string(const nlohmann::json &value,
                     const std::string &where) const {
    if (!value.is_string())
      fail(where + ": expected a string");
    return value.get<std::string>();
  }

  const nlohmann::json &optionalArray(const nlohmann::json &root,
                                      const char *key) const {
    static const nlohmann::json empty = nlohmann::json::array();
    auto it = root.find(key);
    if (it == root.end())
      return empty;
    if (!it->is_array())
      fail(std::string(key) + ": expected an array");
    return *it;
  }

  Scene read(int width, int height) const;

private:
  std::string path_;
};

void addTriangle(Scene &scene, Vec3 v0, Vec3 v1, Vec3 v2, int material) {
  Triangle t;
  t.v0 = v0;
  t.v1 = v1;
  t.v2 = v2;
  t.e1 = v1 - v0;
  t.e2 = v2 - v0;
  Vec3 c = cross(t.e1, t.e2);
  float len = length(c);
  // A zero-area triangle (possible in a mesh) can never be hit (|det| = 0);
  // keep a finite normal.
  t.ng = len > 0 ? c / len : Vec3{0, 0, 1};
  t.material = material;
  scene.triangles.push_back(t);
}

Scene SceneReader::read(int width, int height) const {
  std::ifstream in(path_, std::ios::binary);
  if (!in)
    fail("cannot open the scene file (" + std::string(std::strerror(errno)) +
         ")");
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error &error) {
    fail(std::string("not valid JSON: ") + error.what());
  }
  if (!root.is_object())
    fail("the top level is not a JSON object");

  Scene scene;

  // Camera (section 2's derived vectors).
  const nlohmann::json &camera = require(root, "scene", "camera");
  if (!camera.is_object())
    fail("camera: expected an object");
  Vec3 eye = vec3(require(camera, "camera", "eye"), "camera.eye");
  Vec3 lookAt = vec3(require(camera, "camera", "look_at"), "camera.look_at");
  Vec3 up = vec3(require(camera, "camera", "up"), "camera.up");
  float fov = number(require(camera, "camera", "fov_y_degrees"),
                     "camera.fov_y_degrees");
  if (!(fov > 0 && fov < 180))
    fail("camera.fov_y_degrees: must be in (0, 180)");
  Vec3 toTarget = lookAt - eye;
  if (dot(toTarget, toTarget) == 0)
    fail("camera: eye and look_at coincide");
  Vec3 forward = normalize(toTarget);
  Vec3 side = cross(forward, up);
  if (dot(side, side) == 0)
    fail("camera: up is parallel to the view direction");
  Vec3 rightUnit = normalize(side);
  float tanHalf = std::tan(fov * kPi / 180.0f / 2.0f);
  scene.camera.eye = eye;
  scene.camera.forward = forward;
  scene.camera.right = {rightUnit.x * tanHalf * float(width) / float(height),
                        rightUnit.y * tanHalf * float(width) / float(height),
                        rightUnit.z * tanHalf * float(width) / float(height)};
  scene.camera.up = cross(rightUnit, forward) * tanHalf;

  // Materials, in the JSON object's (sorted) key order; the index is internal
  // only.
  const nlohmann::json &materials = require(root, "scene", "materials");
  if (!materials.is_object())
    fail("materials: expected an object");
  std::map<std::string, int> materialIndex;
  for (auto it = materials.begin(); it != materials.end(); ++it) {
    std::string where = "materials." + it.key();
    if (!it->is_object())
      fail(where + ": expected an object");
    Material m;
    std::string kind = string(require(*it, where, "kind"), where + ".kind");
    if (kind == "diffuse")
      m.kind = Kind::Diffuse;
    else if (kind == "mirror")
      m.kind = Kind::Mirror;
    else if (kind == "glass")
      m.kind = Kind::Glass;
    else
      fail(where + ".kind: unknown material kind '" + kind + "'");
    if (it->contains("albedo"))
      m.albedo = vec3((*it)["albedo"], where + ".albedo");
    if (it->contains("emission"))
      m.emission = vec3((*it)["emission"], where + ".emission");
    if (it->contains("ior"))
      m.ior = number((*it)["ior"], where + ".ior");
    if (!(m.ior > 0))
      fail(where + ".ior: must be positive");
    if (it->contains("texture")) {
      std::string name = string((*it)["texture"], where + ".texture");
      if (m.kind != Kind::Diffuse)
        fail(where + ".texture: only a diffuse material has a texture");
      static const std::map<std::string, Pattern> patterns = {
          {"fbm", Pattern::Fbm},
          {"turbulence", Pattern::Turbulence},
          {"ridged", Pattern::Ridged},
          {"blocks", Pattern::Blocks}};
      auto found = patterns.find(name);
      if (found == patterns.end())
        fail(where + ".texture: unknown texture '" + name + "'");
      m.pattern = found->second;
    }
    for (float c : {m.albedo.x, m.albedo.y, m.albedo.z, m.emission.x,
                    m.emission.y, m.emission.z})
      if (c < 0)
        fail(where + ": albedo and emission must not be negative");
    materialIndex[it.key()] = int(scene.materials.size());
    scene.materials.push_back(m);
  }
  auto lookupMaterial = [&](const nlohmann::json &object,
                            const std::string &where) {
    std::string name =
        string(require(object, where, "material"), where + ".material");
    auto found = materialIndex.find(name);
    if (found == materialIndex.end())
      fail(where + ".material: unknown material '" + name + "'");
    return found->second;
  };
  auto emits = [](const Material &m) {
    return m.emission.x > 0 || m.emission.y > 0 || m.emission.z > 0;
  };

  // Quads: two triangles each; an emissive one is also a light.
  const nlohmann::json &quads = optionalArray(root, "quads");
  for (size_t i = 0; i < quads.size(); ++i) {
    std::string where = "quads[" + std::to_string(i) + "]";
    const nlohmann::json &q = quads[i];
    if (!q.is_object())
      fail(where + ": expected an object");
    Vec3 corner = vec3(require(q, where, "corner"), where + ".corner");
    Vec3 edgeU = vec3(require(q, where, "edge_u"), where + ".edge_u");
    Vec3 edgeV = vec3(require(q, where, "edge_v"), where + ".edge_v");
    int material = lookupMaterial(q, where);
    Vec3 c = cross(edgeU, edgeV);
    float area = length(c);
    if (!(area > 0))
      fail(where + ": degenerate quad (zero area)");
    Vec3 c1 = corner + edgeU;
    Vec3 c2 = corner + edgeU + edgeV;
    Vec3 c3 = corner + edgeV;
    addTriangle(scene, corner, c1, c2, material);
    addTriangle(scene, corner, c2, c3, material);
    if (emits(scene.materials[material]))
      scene.lights.push_back({corner, edgeU, edgeV,
                              scene.materials[material].emission, c / area,
                              area});
  }

  scene.quadTriangles = uint32_t(scene.triangles.size());

  // Spheres.
  const nlohmann::json &spheres = optionalArray(root, "spheres");
  for (size_t i = 0; i < spheres.size(); ++i) {
    std::string where = "spheres[" + std::to_string(i) + "]";
    const nlohmann::json &s = spheres[i];
    if (!s.is_object())
      fail(where + ": expected an object");
    Vec3 center = vec3(require(s, where, "center"), where + ".center");
    float radius = number(require(s, where, "radius"), where + ".radius");
    if (radius < 0)
      fail(where + ".radius: negative radius");
    scene.spheres.push_back({center, radius, lookupMaterial(s, where)});
  }

  // Meshes (OBJ, relative to the scene file).
  const nlohmann::json &meshes = optionalArray(root, "meshes");
  for (size_t i = 0; i < meshes.size(); ++i) {
    std::string where = "meshes[" + std::to_string(i) + "]";
    const nlohmann::json &m = meshes[i];
    if (!m.is_object())
      fail(where + ": expected an object");
    std::string obj = string(require(m, where, "obj"), where + ".obj");
    Vec3 center = vec3(require(m, where, "center"), where + ".center");
    float scale = number(require(m, where, "scale"), where + ".scale");
    if (scale < 0)
      fail(where + ".scale: negative scale");
    int material = lookupMaterial(m, where);
    std::filesystem::path objPath(obj);
    if (objPath.is_relative())
      objPath = std::filesystem::path(path_).parent_path() / objPath;
    std::string objName = objPath.string();
    if (!std::filesystem::is_regular_file(objPath))
      fail(where + ".obj: " + objName + ": no such OBJ file");
    tinyobj::ObjReaderConfig config;
    config.triangulate = true;
    config.vertex_color = false;
    tinyobj::ObjReader reader;
    if (!reader.ParseFromFile(objName, config) || !reader.Valid())
      fail(where + ".obj: " + objName +
           ": does not parse as OBJ: " + reader.Error());
    const tinyobj::attrib_t &attrib = reader.GetAttrib();
    size_t vertexCount = attrib.vertices.size() / 3;
    size_t before = scene.triangles.size();
    for (const tinyobj::shape_t &shape : reader.GetShapes()) {
      size_t offset = 0;
      for (unsigned char n : shape.mesh.num_face_vertices) {
        if (n != 3)
          fail(where + ".obj: " + objName +
               ": does not parse as OBJ: a face has " + std::to_string(n) +
               " vertices after triangulation");
        Vec3 v[3];
        for (int k = 0; k < 3; ++k) {
          int index = shape.mesh.indices[offset + k].vertex_index;
          if (index < 0 || size_t(index) >= vertexCount)
            fail(where + ".obj: " + objName +
                 ": does not parse as OBJ: a face refers to a vertex that does "
                 "not exist");
          Vec3 local{float(attrib.vertices[3 * index]),
                     float(attrib.vertices[3 * index + 1]),
                     float(attrib.vertices[3 * index + 2])};
          v[k] = center + scale * local;
        }
        addTriangle(scene, v[0], v[1], v[2], material);
        offset += 3;
      }
    }
    if (scene.triangles.size() == before)
      fail(where + ".obj: " + objName +
           ": does not parse as OBJ: it has no faces");
  }

  if (scene.lights.empty())
    fail("the scene has no light (no quad whose material emits)");
  return scene;
}

// ---------------------------------------------------------------------------------------------
// BVH over the meshes' triangles (median split on the longest centroid axis, at
// most 4 triangles per leaf); the quads' few, large triangles are tested one by
// one. Its boxes are padded by `pad` on every side so that the float slab test
// can only accept more than it should, never reject a triangle the
// Möller–Trumbore test would accept: the padding (1e-4 of the scene's extent,
// plus 1e-4) dwarfs the slab test's rounding error (about |t| * 2^-22).

void buildBvh(Scene &scene) {
  size_t n = scene.triangles.size() - scene.quadTriangles;
  scene.bvhOrder.resize(n);
  for (size_t i = 0; i < n; ++i)
    scene.bvhOrder[i] = uint32_t(scene.quadTriangles + i);
  if (n == 0)
    return;
  Vec3 sceneLo{INFINITY, INFINITY, INFINITY},
      sceneHi{-INFINITY, -INFINITY, -INFINITY};
  for (uint32_t i : scene.bvhOrder) {
    const Triangle &t = scene.triangles[i];
    sceneLo = vmin(sceneLo, vmin(t.v0, vmin(t.v1, t.v2)));
    sceneHi = vmax(sceneHi, vmax(t.v0, vmax(t.v1, t.v2)));
  }
  float extent = 0;
  for (int a = 0; a < 3; ++a)
    extent = std::max({extent, std::fabs(component(sceneLo, a)),
                       std::fabs(component(sceneHi, a))});
  float pad = 1e-4f * extent + 1e-4f;

  auto centroid = [&](uint32_t i) {
    const Triangle &t = scene.triangles[i];
    return (t.v0 + t.v1 + t.v2) * (1.0f / 3.0f);
  };
  struct Task {
    uint32_t node, first, count;
  };
  scene.bvh.push_back({});
  std::vector<Task> tasks{{0, 0, uint32_t(n)}};
  while (!tasks.empty()) {
    Task task = tasks.back();
    tasks.pop_back();
    Vec3 lo{INFINITY, INFINITY, INFINITY}, hi{-INFINITY, -INFINITY, -INFINITY};
    Vec3 clo = lo, chi = hi;
    for (uint32_t k = task.first; k < task.first + task.count; ++k) {
      const Triangle &t = scene.triangles[scene.bvhOrder[k]];
      lo = vmin(lo, vmin(t.v0, vmin(t.v1, t.v2)));
      hi = vmax(hi, vmax(t.v0, vmax(t.v1, t.v2)));
      Vec3 c = centroid(scene.bvhOrder[k]);
      clo = vmin(clo, c);
      chi = vmax(chi, c);
    }
    BvhNode &node = scene.bvh[task.node];
    node.lo = lo - Vec3{pad, pad, pad};
    node.hi = hi + Vec3{pad, pad, pad};
    if (task.count <= 4) {
      node.first = task.first;
      node.count = task.count;
      continue;
    }
    Vec3 size = chi - clo;
    int axis = size.x >= size.y && size.x >= size.z ? 0
               : size.y >= size.z                   ? 1
                                                    : 2;
    uint32_t half = task.count / 2;
    auto begin = scene.bvhOrder.begin() + task.first;
    std::nth_element(begin, begin + half, begin + task.count,
                     [&](uint32_t a, uint32_t b) {
                       float ca = component(centroid(a), axis),
                             cb = component(centroid(b), axis);
                       return ca < cb || (ca == cb && a < b);
                     });
    uint32_t left = uint32_t(scene.bvh.size());
    node.first = left;
    node.count = 0;
    scene.bvh.push_back({});
    scene.bvh.push_back({});
    tasks.push_back({left, task.first, half});
    tasks.push_back({left + 1, task.first + half, task.count - half});
  }
}

// Whether the ray (o, d) meets the box somewhere in [tmin, tmax].
bool hitsBox(const BvhNode &node, Vec3 o, Vec3 d, float tmin, float tmax) {
  float lo = tmin, hi = tmax;
  for (int a = 0; a < 3; ++a) {
    float oa = component(o, a), da = component(d, a);
    float boxLo = component(node.lo, a), boxHi = component(node.hi, a);
    if (da == 0) {
      if (oa < boxLo || oa > boxHi)
        return false;
      continue;
    }
    float t0 = (boxLo - oa) / da, t1 = (boxHi - oa) / da;
    if (t0 > t1)
      std::swap(t0, t1);
    lo = std::max(lo, t0);
    hi = std::min(hi, t1);
    if (lo > hi)
      return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Intersection (section 4).

const float kTMin = 0.01f;
const float kTMax = 1e30f;

// Möller–Trumbore, exactly as section 4 writes it. Returns t, or NaN for a
// miss.
float intersectTriangle(const Triangle &tri, Vec3 o, Vec3 d, float tmin,
                        float tmax) {
  Vec3 p = cross(d, tri.e2);
  float det = dot(tri.e1, p);
  if (std::fabs(det) < 1e-9f)
    return NAN;
  Vec3 s = o - tri.v0;
  float u = dot(s, p) / det;
  if (!(u >= 0 && u <= 1))
    return NAN;
  Vec3 q = cross(s, tri.e1);
  float v = dot(d, q) / det;
  if (!(v >= 0 && u + v <= 1))
    return NAN;
  float t = dot(tri.e2, q) / det;
  if (!(t > tmin && t < tmax))
    return NAN;
  return t;
}

// The smaller root above tmin, else the larger (d is a unit vector). NaN for a
// miss.
float intersectSphere(const Sphere &s, Vec3 o, Vec3 d, float tmin, float tmax) {
  Vec3 oc = o - s.center;
  float b = dot(oc, d);
  float c = dot(oc, oc) - s.radius * s.radius;
  float disc = b * b - c;
  if (!(disc >= 0))
    return NAN;
  float root = sqrtf32(disc);
  float t = -b - root;
  if (!(t > tmin))
    t = -b + root;
  if (!(t > tmin && t < tmax))
    return NAN;
  return t;
}

struct Hit {
  float t;
  int triangle = -1; // >= 0: a triangle
  int sphere = -1;   // >= 0: a sphere
};

// --ray-log: the rays of the pixel row a thread renders, three int32 a ray
// (kind, visits, root; null: no log).
thread_local std::vector<int32_t> *tRayLog = nullptr;

void logRay(const Scene &scene, int32_t kind, int32_t visits, Vec3 o, Vec3 d,
            float tmin) {
  if (!tRayLog)
    return;
  bool root = !scene.bruteForce && !scene.bvh.empty() &&
              hitsBox(scene.bvh[0], o, d, tmin, 1e30f);
  tRayLog->insert(tRayLog->end(), {kind, visits, root ? 1 : 0});
}

// The nearest hit in (tmin, tmax); ties between triangles go to the lowest
// index.
bool intersect(const Scene &scene, Vec3 o, Vec3 d, float tmin, float tmax,
               Hit &hit) {
  hit = Hit{tmax};
  int32_t visits = 0;
  auto tryTriangle = [&](uint32_t i) {
    float t = intersectTriangle(scene.triangles[i], o, d, tmin, tmax);
    if (t < hit.t ||
        (t == hit.t && hit.triangle >= 0 && int(i) < hit.triangle)) {
      hit.t = t;
      hit.triangle = int(i);
    }
  };
  if (scene.bruteForce || scene.bvh.empty()) {
    for (uint32_t i = 0; i < scene.triangles.size(); ++i)
      tryTriangle(i);
  } else {
    for (uint32_t i = 0; i < scene.quadTriangles; ++i)
      tryTriangle(i);
    uint32_t stack[64];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const BvhNode &node = scene.bvh[stack[--top]];
      ++visits;
      // hit.t, not tmax: a box entirely beyond the nearest hit so far cannot
      // hold a nearer one.
      if (!hitsBox(node, o, d, tmin, hit.t))
        continue;
      if (node.count > 0) {
        for (uint32_t k = node.first; k < node.first + node.count; ++k)
          tryTriangle(scene.bvhOrder[k]);
      } else {
        stack[top++] = node.first;
        stack[top++] = node.first + 1;
      }
    }
  }
  for (size_t i = 0; i < scene.spheres.size(); ++i) {
    float t = intersectSphere(scene.spheres[i], o, d, tmin, tmax);
    if (t < hit.t) {
      hit.t = t;
      hit.triangle = -1;
      hit.sphere = int(i);
    }
  }
  logRay(scene, 0, visits, o, d, tmin);
  return hit.triangle >= 0 || hit.sphere >= 0;
}

// Whether anything lies in (tmin, tmax) along the ray; `visits` counts the
// BVH nodes the walk visits.
bool occludedWalk(const Scene &scene, Vec3 o, Vec3 d, float tmin, float tmax,
                  int32_t &visits) {
  for (const Sphere &s : scene.spheres)
    if (!std::isnan(intersectSphere(s, o, d, tmin, tmax)))
      return true;
  if (scene.bruteForce || scene.bvh.empty()) {
    for (const Triangle &t : scene.triangles)
      if (!std::isnan(intersectTriangle(t, o, d, tmin, tmax)))
        return true;
    return false;
  }
  for (uint32_t i = 0; i < scene.quadTriangles; ++i)
    if (!std::isnan(intersectTriangle(scene.triangles[i], o, d, tmin, tmax)))
      return true;
  uint32_t stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const BvhNode &node = scene.bvh[stack[--top]];
    ++visits;
    if (!hitsBox(node, o, d, tmin, tmax))
      continue;
    if (node.count > 0) {
      for (uint32_t k = node.first; k < node.first + node.count; ++k)
        if (!std::isnan(intersectTriangle(scene.triangles[scene.bvhOrder[k]], o,
                                          d, tmin, tmax)))
          return true;
    } else {
      stack[top++] = node.first;
      stack[top++] = node.first + 1;
    }
  }
  return false;
}

bool occluded(const Scene &scene, Vec3 o, Vec3 d, float tmin, float tmax) {
  int32_t visits = 0;
  bool blocked = occludedWalk(scene, o, d, tmin, tmax, visits);
  logRay(scene, 1, visits, o, d, tmin);
  return blocked;
}

// ---------------------------------------------------------------------------------------------
// Section 6: the fixed-point film. q(c) = int64(c * 2^24 + 0.5), product and
// sum in binary32, truncated toward zero. A value outside int64's range (never
// seen; it would need a contribution above 5e11) saturates, and NaN adds
// nothing, so that the conversion stays defined.

int64_t fixedPoint(float c) {
  float scaled = c * 16777216.0f + 0.5f;
  if (std::isnan(scaled))
    return 0;
  if (scaled >= 9.2233715e18f)
    return INT64_MAX;
  if (scaled <= -9.2233715e18f)
    return INT64_MIN;
  return int64_t(scaled);
}

void addToFilm(int64_t *pixel, Vec3 c) {
  pixel[0] += fixedPoint(c.x);
  pixel[1] += fixedPoint(c.y);
  pixel[2] += fixedPoint(c.z);
}

// ---------------------------------------------------------------------------------------------
// Section 9: the procedural texture, f32 in the order the section writes.

float latticeValue(int32_t ix, int32_t iy, int32_t iz) {
  uint32_t h = (uint32_t(ix) * 0x8DA6B343u) ^ (uint32_t(iy) * 0xD8163841u) ^
               (uint32_t(iz) * 0xCB1AB31Fu);
  h ^= h >> 13;
  h *= 0x5BD1E995u;
  h ^= h >> 15;
  return float(h >> 8) * 0x1p-24f;
}

float lerpF(float a, float b, float t) {
  float d = b - a;
  float td = t * d;
  return a + td;
}

float valueNoise(float x, float y, float z) {
  float cell[3] = {std::floor(x), std::floor(y), std::floor(z)};
  float point[3] = {x, y, z};
  int32_t base[3];
  float weight[3];
  for (int axis = 0; axis < 3; ++axis) {
    base[axis] = int32_t(cell[axis]);
    float f = point[axis] - float(base[axis]);
    float ff = f * f;
    float twoF = 2.0f * f;
    weight[axis] = ff * (3.0f - twoF);
  }
  auto corner = [&](int a, int b, int c) {
    return latticeValue(base[0] + a, base[1] + b, base[2] + c);
  };
  float x00 = lerpF(corner(0, 0, 0), corner(1, 0, 0), weight[0]);
  float x10 = lerpF(corner(0, 1, 0), corner(1, 1, 0), weight[0]);
  float x01 = lerpF(corner(0, 0, 1), corner(1, 0, 1), weight[0]);
  float x11 = lerpF(corner(0, 1, 1), corner(1, 1, 1), weight[0]);
  float y0 = lerpF(x00, x10, weight[1]);
  float y1 = lerpF(x01, x11, weight[1]);
  return lerpF(y0, y1, weight[2]);
}

// |2 n - 1|, as |(2 * n) - 1|.
float fold(float n) {
  float twice = 2.0f * n;
  return std::fabs(twice - 1.0f);
}

float patternValue(Pattern pattern, float x, float y, float z) {
  switch (pattern) {
  case Pattern::Fbm:
    return valueNoise(x, y, z);
  case Pattern::Turbulence:
    return fold(valueNoise(x, y, z));
  case Pattern::Ridged: {
    float r = 1.0f - fold(valueNoise(x, y, z));
    return r * r;
  }
  case Pattern::Blocks:
    return latticeValue(int32_t(std::floor(x)), int32_t(std::floor(y)),
                        int32_t(std::floor(z)));
  }
  return 0;
}

float textureFactor(const Vec3 &p, uint32_t octaves, Pattern pattern) {
  float sum = 0, norm = 0, amplitude = 1, frequency = 1.0f / 64.0f;
  for (uint32_t o = 0; o < octaves; ++o) {
    float v = patternValue(pattern, p.x * frequency, p.y * frequency,
                           p.z * frequency);
    float weighted = amplitude * v;
    sum = sum + weighted;
    norm = norm + amplitude;
    amplitude = amplitude * 0.5f;
    frequency = frequency * 2.0f;
  }
  float mean = sum / norm;
  float scaled = 0.75f * mean;
  return 0.25f + scaled;
}

// ---------------------------------------------------------------------------------------------
// Section 3 and 4: one sample of one pixel, added to `film` (3 channels).
// Returns the rays traced.

uint64_t renderSample(const Scene &scene, int width, int height, uint32_t seed,
                      uint32_t textureOctaves, int x, int y, uint32_t sample,
                      int64_t *film) {
  uint32_t pixel = uint32_t(y) * uint32_t(width) + uint32_t(x);
  auto u = [&](uint32_t bounce, uint32_t dim) {
    return uniform01(seed, pixel, sample, bounce, dim);
  };
  const Camera &cam = scene.camera;
  float a = 2.0f * (float(x) + u(0, 0)) / float(width) - 1.0f;
  float b = 1.0f - 2.0f * (float(y) + u(0, 1)) / float(height);
  Vec3 o = cam.eye;
  Vec3 d = normalize(cam.forward + a * cam.right + b * cam.up);
  Vec3 T{1, 1, 1};
  uint32_t bounce = 0;
  bool specular = true;
  uint64_t rays = 0;
  const uint32_t lightCount = uint32_t(scene.lights.size());

  for (;;) {
    ++rays;
    Hit hit;
    if (!intersect(scene, o, d, kTMin, kTMax, hit))
      break; // the background is black
    Vec3 p = o + d * hit.t;
    Vec3 ng;
    int materialIndex;
    if (hit.triangle >= 0) {
      const Triangle &tri = scene.triangles[hit.triangle];
      ng = tri.ng;
      materialIndex = tri.material;
    } else {
      const Sphere &s = scene.spheres[hit.sphere];
      ng = (p - s.center) / s.radius;
      materialIndex = s.material;
    }
    const Material &m = scene.materials[materialIndex];
    bool front = dot(d, ng) < 0;

    // 1. Emission.
    if (front && (bounce == 0 || specular))
      addToFilm(film, mul(T, m.emission));
    // 2. The shading normal faces the incoming ray.
    Vec3 n = front ? ng : -ng;

    Vec3 next;
    if (m.kind == Kind::Diffuse) {
      // Section 9: the albedo of a diffuse hit, textured when O > 0.
      Vec3 albedo = m.albedo;
      if (textureOctaves > 0) {
        float t = textureFactor(p, textureOctaves, m.pattern);
        albedo = Vec3{m.albedo.x * t, m.albedo.y * t, m.albedo.z * t};
      }
      // 3a. Next-event estimation.
      uint32_t i =
          std::min(uint32_t(std::floor(u(bounce, 2) * float(lightCount))),
                   lightCount - 1);
      const Light &light = scene.lights[i];
      Vec3 q = light.corner + u(bounce, 3) * light.edgeU +
               u(bounce, 4) * light.edgeV;
      Vec3 w = q - p;
      float dist = length(w);
      Vec3 wi = w / dist;
      float cosS = dot(n, wi);
      float cosL = -dot(light.normal, wi);
      if (cosS > 0 && cosL > 0) {
        // T * albedo / pi * radiance * cos_s * cos_l * area * L / dist^2, left
        // to right.
        float L = float(lightCount), dist2 = dist * dist;
        Vec3 C{T.x * albedo.x / kPi * light.radiance.x * cosS * cosL *
                   light.area * L / dist2,
               T.y * albedo.y / kPi * light.radiance.y * cosS * cosL *
                   light.area * L / dist2,
               T.z * albedo.z / kPi * light.radiance.z * cosS * cosL *
                   light.area * L / dist2};
        ++rays;
        if (!occluded(scene, p, wi, kTMin, dist - 0.01f))
          addToFilm(film, C);
      }
      // 3b. Cosine-weighted bounce in the basis of Duff et al. 2017.
      float u5 = u(bounce, 5), u6 = u(bounce, 6);
      float r = sqrtf32(u5);
      float phi = 2.0f * kPi * u6;
      float lx = r * cosf32(phi), ly = r * sinf32(phi);
      float lz = sqrtf32(std::max(0.0f, 1.0f - u5));
      float sign = std::copysign(1.0f, n.z);
      float ca = -1.0f / (sign + n.z);
      float cb = n.x * n.y * ca;
      Vec3 b1{1.0f + sign * n.x * n.x * ca, sign * cb, -sign * n.x};
      Vec3 b2{cb, sign + n.y * n.y * ca, -n.y};
      next = lx * b1 + ly * b2 + lz * n;
      T = mul(T, albedo);
      specular = false;
    } else if (m.kind == Kind::Mirror) {
      // 4. Mirror.
      next = d - 2.0f * dot(d, n) * n;
      T = mul(T, m.albedo);
      specular = true;
    } else {
      // 5. Glass.
      float eta = front ? 1.0f / m.ior : m.ior;
      float c = -dot(d, n);
      float k = 1.0f - eta * eta * (1.0f - c * c);
      float F, ct = 0;
      if (k < 0) {
        F = 1;
      } else {
        ct = sqrtf32(k);
        float rs = (eta * c - ct) / (eta * c + ct);
        float rp = (c - eta * ct) / (c + eta * ct);
        F = (rs * rs + rp * rp) / 2.0f;
      }
      if (u(bounce, 7) < F)
        next = d - 2.0f * dot(d, n) * n;
      else
        next = eta * d + (eta * c - ct) * n;
      specular = true;
    }
    // 6. The next ray.
    o = p;
    d = normalize(next);
    uint32_t shaded = bounce;
    bounce += 1;
    // 7. Depth and roulette (u8 of the bounce just shaded).
    if (bounce == 8)
      break;
    if (bounce >= 3) {
      float q = std::clamp(std::max({T.x, T.y, T.z}), 0.05f, 0.95f);
      if (u(shaded, 8) >= q)
        break;
      T = T / q;
    }
  }
  return rays;
}

// ---------------------------------------------------------------------------------------------
// Outputs.

bool writePfm(const std::string &path, int width, int height,
              const std::vector<float> &rgb) {
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return false;
  out << "PF\n" << width << " " << height << "\n-1\n";
  for (int y = height - 1; y >= 0; --y) // PFM stores the bottom row first
    out.write(reinterpret_cast<const char *>(&rgb[size_t(y) * width * 3]),
              std::streamsize(sizeof(float) * 3 * width));
  return bool(out);
}

// `values` as a NumPy .npy file of the row-major `shape` (xtensor's writer;
// the film: one int64 array of W*H*3 elements, the layout of the `film`
// binding, section 2).
template <typename T>
bool writeNpy(const std::string &path, const std::vector<T> &values,
              std::vector<size_t> shape) {
  std::string bytes = xt::dump_npy(xt::adapt(values, shape));
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  return bool(out);
}

// ---------------------------------------------------------------------------------------------
// Command line.

[[noreturn]] void usage(const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  std::fprintf(
      stderr,
      "usage: %s --scene FILE.json --width W --height H --spp N [--seed S]\n"
      "          [--texture-octaves O] [--threads T] --pfm OUT.pfm\n"
      "          [--film OUT.npy] [--brute-force]\n"
      "          [--perturb-sqrt] [--perturb-trig] [--ray-log OUT.npy]\n"
      "       %s --philox C0 C1 K\n"
      "       %s --random SEED PIXEL SAMPLE BOUNCE DIM\n",
      kTool, kTool, kTool);
  std::exit(2);
}

uint64_t parseUnsigned(const std::string &option, const char *text,
                       uint64_t max) {
  std::string_view s(text);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  uint64_t value = 0;
  auto [end, error] =
      std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (s.empty() || error != std::errc() || end != s.data() + s.size() ||
      value > max)
    usage(option + ": expected an integer in [0, " + std::to_string(max) +
          "], got '" + text + "'");
  return value;
}

} // namespace

int main(int argc, char **argv) {
  std::optional<std::string> scenePath, pfmPath, filmPath, rayLogPath;
  std::optional<uint64_t> width, height, spp;
  uint32_t seed = 0;
  uint32_t textureOctaves = 0;
  unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  bool bruteForce = false;

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc)
        usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--philox") {
      if (i + 3 >= argc)
        usage("--philox needs C0 C1 K");
      uint32_t c0 =
          uint32_t(parseUnsigned("--philox", argv[i + 1], UINT32_MAX));
      uint32_t c1 =
          uint32_t(parseUnsigned("--philox", argv[i + 2], UINT32_MAX));
      uint32_t k = uint32_t(parseUnsigned("--philox", argv[i + 3], UINT32_MAX));
      Philox2 r = philox2x32_10(c0, c1, k);
      std::printf("philox2x32_10 counter (0x%08x, 0x%08x) key 0x%08x -> "
                  "(0x%08x, 0x%08x)\n",
                  c0, c1, k, r.c0, r.c1);
      return 0;
    }
    if (arg == "--random") {
      if (i + 5 >= argc)
        usage("--random needs SEED PIXEL SAMPLE BOUNCE DIM");
      uint32_t s = uint32_t(parseUnsigned("--random", argv[i + 1], UINT32_MAX));
      uint32_t pixel =
          uint32_t(parseUnsigned("--random", argv[i + 2], UINT32_MAX));
      uint32_t sample =
          uint32_t(parseUnsigned("--random", argv[i + 3], (1u << 24) - 1));
      uint32_t bounce = uint32_t(parseUnsigned("--random", argv[i + 4], 15));
      uint32_t dim = uint32_t(parseUnsigned("--random", argv[i + 5], 15));
      float value = uniform01(s, pixel, sample, bounce, dim);
      std::printf("u = %.17g = 0x%06x * 2^-24\n", double(value),
                  unsigned(double(value) * 16777216.0));
      return 0;
    }
    if (arg == "--scene")
      scenePath = value();
    else if (arg == "--pfm")
      pfmPath = value();
    else if (arg == "--film")
      filmPath = value();
    else if (arg == "--width")
      width = parseUnsigned(arg, value(), 1u << 16);
    else if (arg == "--height")
      height = parseUnsigned(arg, value(), 1u << 16);
    else if (arg == "--spp")
      spp = parseUnsigned(arg, value(), 1u << 24); // sample < 2^24 (section 5)
    else if (arg == "--seed")
      seed = uint32_t(parseUnsigned(arg, value(), UINT32_MAX));
    else if (arg == "--texture-octaves")
      textureOctaves = uint32_t(parseUnsigned(arg, value(), 16)); // section 9
    else if (arg == "--threads")
      threads = unsigned(parseUnsigned(arg, value(), 1024));
    else if (arg == "--brute-force")
      bruteForce = true;
    else if (arg == "--perturb-sqrt")
      gPerturbSqrt = true;
    else if (arg == "--perturb-trig")
      gPerturbTrig = true;
    else if (arg == "--ray-log")
      rayLogPath = value();
    else
      usage("unknown argument '" + arg + "'");
  }
  if (!scenePath)
    usage("--scene is required");
  if (!width || !height || !spp)
    usage("--width, --height and --spp are required");
  if (*width == 0 || *height == 0)
    usage("the resolution must be at least 1 x 1, got " +
          std::to_string(*width) + " x " + std::to_string(*height));
  if (*spp == 0)
    usage("--spp must be at least 1");
  if (threads == 0)
    usage("--threads must be at least 1");
  if (!pfmPath)
    usage("--pfm is required");

  Scene scene;
  try {
    scene = SceneReader(*scenePath).read(int(*width), int(*height));
  } catch (const SceneError &error) {
    std::fprintf(stderr, "%s: error: %s\n", kTool, error.what());
    return 1;
  }
  scene.bruteForce = bruteForce;
  buildBvh(scene);

  const int W = int(*width), H = int(*height);
  const uint32_t samples = uint32_t(*spp);
  std::vector<int64_t> film(size_t(W) * H * 3, 0);
  std::vector<std::vector<int32_t>> rowLogs(rayLogPath ? size_t(H) : 0);
  std::atomic<int> nextRow{0};
  std::atomic<uint64_t> totalRays{0};
  auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    uint64_t rays = 0;
    for (int y; (y = nextRow.fetch_add(1)) < H;) {
      tRayLog = rayLogPath ? &rowLogs[size_t(y)] : nullptr;
      for (int x = 0; x < W; ++x) {
        int64_t *pixel = &film[(size_t(y) * W + x) * 3];
        for (uint32_t s = 0; s < samples; ++s)
          rays +=
              renderSample(scene, W, H, seed, textureOctaves, x, y, s, pixel);
      }
    }
    tRayLog = nullptr;
    totalRays += rays;
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<unsigned>(threads, unsigned(H)); ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &t : pool)
    t.join();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

  // Section 6: radiance = film * 2^-24 / spp in double, stored as f32.
  std::vector<float> rgb(film.size());
  for (size_t i = 0; i < film.size(); ++i)
    rgb[i] = float(double(film[i]) * 0x1p-24 / double(samples));
  if (!writePfm(*pfmPath, W, H, rgb)) {
    std::fprintf(stderr, "%s: error: %s: cannot write the PFM image\n", kTool,
                 pfmPath->c_str());
    return 2;
  }
  if (rayLogPath) {
    std::vector<int32_t> rays;
    for (const std::vector<int32_t> &row : rowLogs)
      rays.insert(rays.end(), row.begin(), row.end());
    if (!writeNpy(*rayLogPath, rays, {rays.size() / 3, 3})) {
      std::fprintf(stderr, "%s: error: %s: cannot write the ray log\n", kTool,
                   rayLogPath->c_str());
      return 2;
    }
  }
  if (filmPath && !writeNpy(*filmPath, film, {film.size()})) {
    std::fprintf(stderr, "%s: error: %s: cannot write the film\n", kTool,
                 filmPath->c_str());
    return 2;
  }
  std::fprintf(stderr,
               "%s: %d x %d, %u spp, %zu triangles, %zu spheres, %zu lights: "
               "%llu rays in %.3f s "
               "= %.3f Mrays/s (%u threads)\n",
               kTool, W, H, samples, scene.triangles.size(),
               scene.spheres.size(), scene.lights.size(),
               (unsigned long long)totalRays.load(), seconds,
               double(totalRays.load()) / seconds * 1e-6,
               std::min<unsigned>(threads, unsigned(H)));
  return 0;
}
