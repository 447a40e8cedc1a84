//===- scene_test.cpp - The path tracer's scene library -------------------===//
//
// docs/pathtracer.md sections 1, 2 and 6 against independent values: the
// BVH's nearest hit against a brute-force loop over every triangle, the
// flattened bindings against the counts of the scene files, the camera
// vectors against hand-computed ones, every bad input of section 1, the PFM
// bytes, and the sRGB formula at hand-computed points.
//
//===----------------------------------------------------------------------===//

#include "image.h"
#include "scene.h"

#include "sluice/runtime/program/host_buffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <unistd.h>

namespace pt = sluice::pathtracer;
namespace rt = sluice::runtime;
namespace fs = std::filesystem;
using pt::Vec3;

namespace {

const std::string kScenes = SLUICE_PATHTRACER_SCENES;

pt::Scene loadOrDie(const std::string &name) {
  pt::Scene scene;
  rt::Status status = pt::loadScene(kScenes + "/" + name, scene);
  EXPECT_TRUE(status.ok()) << status.message();
  return scene;
}

// The bindings of `scene` at `raster`, with its BVH in `bvh`.
std::vector<pt::NamedBuffer> flattenOrDie(const pt::Scene &scene, pt::Bvh &bvh,
                                          const pt::Raster &raster) {
  std::vector<pt::NamedBuffer> bindings;
  rt::Status status = pt::buildBvh(scene.triangles, bvh);
  if (status.ok())
    status = pt::flattenScene(scene, bvh, raster, bindings);
  EXPECT_TRUE(status.ok()) << status.message();
  return bindings;
}

//===----------------------------------------------------------------------===//
// An independent ray caster: Möller–Trumbore of section 4, brute force and
// over the flattened BVH bindings.
//===----------------------------------------------------------------------===//

struct Ray {
  Vec3 o, d;
};

Vec3 add(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3 sub(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

constexpr float kTMin = 0.01f, kTMax = 1e30f;

// The hit distance, or kTMax when the ray misses.
float intersect(const Ray &ray, Vec3 v0, Vec3 v1, Vec3 v2) {
  Vec3 e1 = sub(v1, v0), e2 = sub(v2, v0);
  Vec3 p = cross(ray.d, e2);
  float det = dot(e1, p);
  if (std::fabs(det) < 1e-9f)
    return kTMax;
  Vec3 s = sub(ray.o, v0);
  float u = dot(s, p) / det;
  if (u < 0 || u > 1)
    return kTMax;
  Vec3 q = cross(s, e1);
  float v = dot(ray.d, q) / det;
  if (v < 0 || u + v > 1)
    return kTMax;
  float t = dot(e2, q) / det;
  return t > kTMin && t < kTMax ? t : kTMax;
}

float bruteForce(const Ray &ray, const std::vector<pt::Triangle> &triangles) {
  float best = kTMax;
  for (const pt::Triangle &t : triangles)
    best = std::min(best, intersect(ray, t.v0, t.v1, t.v2));
  return best;
}

struct Flat {
  std::vector<float> triVerts, bounds;
  std::vector<int32_t> links;
};

template <typename T> std::vector<T> elements(const rt::HostBuffer &buffer) {
  std::vector<T> out(buffer.bytes.size() / sizeof(T));
  std::memcpy(out.data(), buffer.bytes.data(), buffer.bytes.size());
  return out;
}

const rt::HostBuffer &find(const std::vector<pt::NamedBuffer> &bindings,
                           const std::string &name) {
  for (const pt::NamedBuffer &b : bindings)
    if (b.name == name)
      return b.value;
  ADD_FAILURE() << "no binding " << name;
  static rt::HostBuffer none;
  return none;
}

// The slab test in double, widened by a relative epsilon: the caster only
// needs to be conservative, since its leaves test the triangles exactly.
bool hitsBox(const Ray &ray, const float *b, float tBest) {
  double o[3] = {ray.o.x, ray.o.y, ray.o.z}, d[3] = {ray.d.x, ray.d.y, ray.d.z};
  double lo = 0, hi = double(tBest) * (1 + 1e-6) + 1e-6;
  for (int a = 0; a < 3; ++a) {
    double pad = 1e-5 * (std::fabs(b[a]) + std::fabs(b[a + 3]) + 1);
    double bl = b[a] - pad, bh = b[a + 3] + pad;
    if (d[a] == 0) {
      if (o[a] < bl || o[a] > bh)
        return false;
      continue;
    }
    double t0 = (bl - o[a]) / d[a], t1 = (bh - o[a]) / d[a];
    if (t0 > t1)
      std::swap(t0, t1);
    lo = std::max(lo, t0);
    hi = std::min(hi, t1);
  }
  return lo <= hi;
}

float traverse(const Ray &ray, const Flat &flat) {
  float best = kTMax;
  int stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    int node = stack[--top];
    if (!hitsBox(ray, &flat.bounds[6 * size_t(node)], best))
      continue;
    int first = flat.links[2 * size_t(node)],
        count = flat.links[2 * size_t(node) + 1];
    if (count == 0) {
      stack[top++] = first;
      stack[top++] = first + 1;
      continue;
    }
    for (int t = first; t < first + count; ++t) {
      const float *v = &flat.triVerts[9 * size_t(t)];
      best = std::min(best, intersect(ray, {v[0], v[1], v[2]},
                                      {v[3], v[4], v[5]}, {v[6], v[7], v[8]}));
    }
  }
  return best;
}

Vec3 normalized(Vec3 v) {
  float l = std::sqrt(dot(v, v));
  return {v.x / l, v.y / l, v.z / l};
}

//===----------------------------------------------------------------------===//
// Loading and flattening
//===----------------------------------------------------------------------===//

TEST(PathtracerScene, CornellBoxLoads) {
  pt::Scene scene = loadOrDie("cornell-box.json");
  ASSERT_EQ(scene.quads.size(), 6u);
  ASSERT_EQ(scene.spheres.size(), 2u);
  ASSERT_EQ(scene.materials.size(), 7u);
  // The icosphere's 1,280 (quads are tested as parallelograms, not in the
  // BVH).
  ASSERT_EQ(scene.triangles.size(), 1280u);
  ASSERT_EQ(scene.lights.size(), 1u);
  const pt::Quad &light = scene.quads[scene.lights[0]];
  EXPECT_EQ(light.corner, (Vec3{213, 554, 227}));
  // The light faces down, every wall into the box (centre 277.5).
  Vec3 n = cross(light.edgeU, light.edgeV);
  EXPECT_LT(n.y, 0);
  for (const pt::Quad &q : scene.quads) {
    Vec3 toCentre = sub({277.5f, 277.5f, 277.5f}, q.corner);
    EXPECT_GT(dot(cross(q.edgeU, q.edgeV), toCentre), 0);
  }
  // The icosphere: every vertex 80 from (370, 330, 250), faces outward.
  Vec3 centre{370, 330, 250};
  std::set<std::tuple<float, float, float>> vertices;
  for (size_t i = 0; i < scene.triangles.size(); ++i) {
    const pt::Triangle &t = scene.triangles[i];
    for (Vec3 v : {t.v0, t.v1, t.v2}) {
      Vec3 r = sub(v, centre);
      EXPECT_NEAR(std::sqrt(dot(r, r)), 80.0f, 1e-3f);
      vertices.insert({v.x, v.y, v.z});
    }
    Vec3 middle =
        sub({(t.v0.x + t.v1.x + t.v2.x) / 3, (t.v0.y + t.v1.y + t.v2.y) / 3,
             (t.v0.z + t.v1.z + t.v2.z) / 3},
            centre);
    EXPECT_GT(dot(cross(sub(t.v1, t.v0), sub(t.v2, t.v0)), middle), 0)
        << "face " << i;
    EXPECT_EQ(t.material, 6); // gold, the seventh material
  }
  EXPECT_EQ(vertices.size(), 642u);
}

// The divergent variant's materials name section 9's patterns; mat_data
// carries each one's number in its last float (0 fbm, 1 turbulence, 2
// ridged, 3 blocks; 0 for mirror and glass), in the file's material order.
TEST(PathtracerScene, TexturePatternsReachTheMaterialTable) {
  pt::Scene scene = loadOrDie("cornell-box-divergent.json");
  pt::Bvh bvh;
  std::vector<pt::NamedBuffer> bindings = flattenOrDie(scene, bvh, {8, 8, 1});
  std::vector<float> mat = elements<float>(find(bindings, "mat_data"));
  ASSERT_EQ(mat.size(), 9u * 8u);
  // floor, ceiling, back, green, red, light, glass, mirror, gold.
  const float patterns[] = {0, 1, 2, 3, 1, 3, 0, 0, 2};
  for (size_t m = 0; m < 9; ++m)
    EXPECT_EQ(mat[8 * m + 7], patterns[m]) << scene.materials[m].name;
  // The box's own materials name none: fbm everywhere.
  pt::Scene box = loadOrDie("cornell-box.json");
  for (const pt::Material &m : box.materials)
    EXPECT_EQ(m.pattern, pt::TexturePattern::Fbm) << m.name;
}

TEST(PathtracerScene, QuadsStayQuads) {
  // A quad is a parallelogram of its own (section 4), not two triangles.
  pt::Scene scene = loadOrDie("emitter.json");
  EXPECT_TRUE(scene.triangles.empty());
  ASSERT_EQ(scene.quads.size(), 1u);
  EXPECT_EQ(scene.quads[0].corner, (Vec3{-16, -16, 1}));
  EXPECT_EQ(scene.quads[0].edgeU, (Vec3{0, 32, 0}));
  EXPECT_EQ(scene.quads[0].edgeV, (Vec3{32, 0, 0}));
  pt::Scene furnace = loadOrDie("furnace.json");
  EXPECT_EQ(furnace.lights.size(), 6u);
  for (const pt::Quad &q : furnace.quads)
    EXPECT_GT(dot(cross(q.edgeU, q.edgeV), sub({50, 50, 50}, q.corner)), 0);
}

TEST(PathtracerScene, FlattenedCountsAndStrides) {
  pt::Scene scene = loadOrDie("cornell-box.json");
  pt::Bvh bvh;
  std::vector<pt::NamedBuffer> bindings = flattenOrDie(scene, bvh, {64, 48, 7});
  ASSERT_FALSE(bindings.empty());
  using E = rt::ElementType;
  int64_t tris = 1280, nodes = int64_t(bvh.nodes.size());
  struct Expected {
    const char *name;
    E element;
    int64_t count; // -1: a uniform
  } expected[] = {
      {"tri_verts", E::F32, 9 * tris},
      {"tri_mat", E::I32, tris},
      {"bvh_bounds", E::F32, 6 * nodes},
      {"bvh_links", E::I32, 2 * nodes},
      {"spheres", E::F32, 8},
      {"sphere_mat", E::I32, 2},
      {"quads", E::F32, 6 * 9},
      {"quad_mat", E::I32, 6},
      {"mat_kind", E::I32, 7},
      {"mat_data", E::F32, 56},
      {"lights", E::F32, 12},
      {"film", E::I64, 3 * 64 * 48},
      {"width", E::I32, -1},
      {"height", E::I32, -1},
      {"sample_base", E::I32, -1},
      {"seed", E::I32, -1},
      {"texture_octaves", E::I32, -1},
  };
  for (const Expected &e : expected) {
    const rt::HostBuffer &b = find(bindings, e.name);
    EXPECT_EQ(b.element, e.element) << e.name;
    if (e.count < 0) {
      EXPECT_TRUE(b.shape.empty()) << e.name;
    } else {
      ASSERT_EQ(b.shape.size(), 1u) << e.name;
      EXPECT_EQ(b.shape[0], e.count) << e.name;
    }
    EXPECT_EQ(b.bytes.size(),
              (e.count < 0 ? 1 : e.count) * rt::elementTypeBytes(e.element))
        << e.name;
  }
  EXPECT_EQ(bindings.size(), 17u + 12u); // and 12 camera floats
  EXPECT_EQ(elements<int32_t>(find(bindings, "width"))[0], 64);
  EXPECT_EQ(elements<int32_t>(find(bindings, "height"))[0], 48);
  EXPECT_EQ(elements<int32_t>(find(bindings, "seed"))[0], 7);
  EXPECT_EQ(elements<int32_t>(find(bindings, "sample_base"))[0], 0);
  for (int64_t v : elements<int64_t>(find(bindings, "film")))
    ASSERT_EQ(v, 0);

  // Material table: kinds and the 8 floats of the light and the glass.
  EXPECT_EQ(elements<int32_t>(find(bindings, "mat_kind")),
            (std::vector<int32_t>{0, 0, 0, 0, 2, 1, 0}));
  std::vector<float> mat = elements<float>(find(bindings, "mat_data"));
  EXPECT_EQ(std::vector<float>(mat.begin() + 24, mat.begin() + 32),
            (std::vector<float>{0.78f, 0.78f, 0.78f, 15, 15, 15, 1.5f, 0}));
  EXPECT_EQ(std::vector<float>(mat.begin() + 32, mat.begin() + 40),
            (std::vector<float>{1, 1, 1, 0, 0, 0, 1.5f, 0}));
  EXPECT_EQ(
      elements<float>(find(bindings, "lights")),
      (std::vector<float>{213, 554, 227, 130, 0, 0, 0, 0, 105, 15, 15, 15}));
  EXPECT_EQ(elements<float>(find(bindings, "spheres")),
            (std::vector<float>{190, 90, 190, 90, 400, 100, 380, 100}));
  EXPECT_EQ(elements<int32_t>(find(bindings, "sphere_mat")),
            (std::vector<int32_t>{4, 5}));
  // The quads in file order: corner, edge_u, edge_v; the light is the last.
  std::vector<float> quads = elements<float>(find(bindings, "quads"));
  EXPECT_EQ(std::vector<float>(quads.begin() + 45, quads.end()),
            (std::vector<float>{213, 554, 227, 130, 0, 0, 0, 0, 105}));
  EXPECT_EQ(elements<int32_t>(find(bindings, "quad_mat")),
            (std::vector<int32_t>{0, 0, 0, 1, 2, 3}));

  // Triangles in BVH order: a permutation of the scene's, with their
  // materials.
  std::vector<float> verts = elements<float>(find(bindings, "tri_verts"));
  std::vector<int32_t> triMat = elements<int32_t>(find(bindings, "tri_mat"));
  std::multiset<std::vector<float>> flat, original;
  for (size_t i = 0; i < size_t(tris); ++i) {
    std::vector<float> row(verts.begin() + 9 * i, verts.begin() + 9 * i + 9);
    row.push_back(float(triMat[i]));
    flat.insert(row);
    const pt::Triangle &t = scene.triangles[i];
    original.insert({t.v0.x, t.v0.y, t.v0.z, t.v1.x, t.v1.y, t.v1.z, t.v2.x,
                     t.v2.y, t.v2.z, float(t.material)});
  }
  EXPECT_TRUE(flat == original);

  // An empty list is a binding of zero elements; a scene without a mesh
  // has no BVH node.
  pt::Scene emitter = loadOrDie("emitter.json");
  ASSERT_TRUE(pt::buildBvh(emitter.triangles, bvh).ok());
  EXPECT_TRUE(bvh.nodes.empty());
  ASSERT_TRUE(pt::flattenScene(emitter, bvh, {1, 1, 0}, bindings).ok());
  EXPECT_EQ(find(bindings, "spheres").shape, (std::vector<int64_t>{0}));
  EXPECT_EQ(find(bindings, "sphere_mat").shape, (std::vector<int64_t>{0}));
  for (const char *name : {"tri_verts", "tri_mat", "bvh_bounds", "bvh_links"})
    EXPECT_EQ(find(bindings, name).shape, (std::vector<int64_t>{0})) << name;
  EXPECT_EQ(find(bindings, "quads").shape, (std::vector<int64_t>{9}));
}

//===----------------------------------------------------------------------===//
// BVH
//===----------------------------------------------------------------------===//

// Walks the tree: every node reached once, links in range, bounds enclosing
// the triangles and children, leaves <= 4, depth <= 32, every BVH slot in
// exactly one leaf. Returns the depth.
uint32_t checkTree(const Flat &flat, size_t triangles) {
  size_t nodes = flat.links.size() / 2;
  std::vector<int> reached(nodes, 0), covered(triangles, 0);
  uint32_t deepest = 0;
  std::vector<std::pair<int, uint32_t>> stack{{0, 1}};
  auto encloses = [&](const float *outer, const float *inner) {
    for (int a = 0; a < 3; ++a)
      if (inner[a] < outer[a] || inner[a + 3] > outer[a + 3])
        return false;
    return true;
  };
  while (!stack.empty()) {
    auto [node, depth] = stack.back();
    stack.pop_back();
    EXPECT_GE(node, 0);
    EXPECT_LT(size_t(node), nodes);
    if (node < 0 || size_t(node) >= nodes)
      return 0;
    ++reached[size_t(node)];
    deepest = std::max(deepest, depth);
    const float *box = &flat.bounds[6 * size_t(node)];
    int first = flat.links[2 * size_t(node)],
        count = flat.links[2 * size_t(node) + 1];
    if (count == 0) {
      for (int c : {first, first + 1}) {
        EXPECT_TRUE(c > 0 && size_t(c) < nodes);
        if (c > 0 && size_t(c) < nodes) {
          EXPECT_TRUE(encloses(box, &flat.bounds[6 * size_t(c)]));
          stack.push_back({c, depth + 1});
        }
      }
      continue;
    }
    EXPECT_LE(count, 4);
    EXPECT_GT(count, 0);
    for (int t = first; t < first + count; ++t) {
      ++covered[size_t(t)];
      const float *v = &flat.triVerts[9 * size_t(t)];
      for (int corner = 0; corner < 3; ++corner) {
        float p[6] = {v[3 * corner], v[3 * corner + 1], v[3 * corner + 2],
                      v[3 * corner], v[3 * corner + 1], v[3 * corner + 2]};
        EXPECT_TRUE(encloses(box, p));
      }
    }
  }
  for (int r : reached)
    EXPECT_EQ(r, 1);
  for (int c : covered)
    EXPECT_EQ(c, 1);
  EXPECT_LE(deepest, 32u);
  return deepest;
}

Flat flatten(const pt::Scene &scene, const pt::Bvh &bvh) {
  std::vector<pt::NamedBuffer> bindings;
  EXPECT_TRUE(pt::flattenScene(scene, bvh, {4, 4, 0}, bindings).ok());
  return {elements<float>(find(bindings, "tri_verts")),
          elements<float>(find(bindings, "bvh_bounds")),
          elements<int32_t>(find(bindings, "bvh_links"))};
}

TEST(PathtracerBvh, NearestHitEqualsBruteForce) {
  // The benchmark's triangles, and the box's quads as two triangles each
  // (the renderer tests them outside the BVH; here they give the tree large
  // faces that overlap the icosphere's nodes, and the rays hits).
  pt::Scene scene = loadOrDie("cornell-box.json");
  std::vector<pt::Triangle> meshOnly = std::move(scene.triangles);
  scene.triangles.clear();
  for (const pt::Quad &q : scene.quads) {
    Vec3 c = q.corner, cu = add(c, q.edgeU), cuv = add(cu, q.edgeV),
         cv = add(c, q.edgeV);
    scene.triangles.push_back({c, cu, cuv, q.material});
    scene.triangles.push_back({c, cuv, cv, q.material});
  }
  scene.triangles.insert(scene.triangles.end(), meshOnly.begin(),
                         meshOnly.end());
  pt::Bvh bvh;
  ASSERT_TRUE(pt::buildBvh(scene.triangles, bvh).ok());
  Flat flat = flatten(scene, bvh);
  EXPECT_EQ(checkTree(flat, scene.triangles.size()), bvh.depth);

  std::mt19937 random(12345);
  std::uniform_real_distribution<float> inBox(1, 554), around(-200, 755),
      unit(-1, 1);
  int hits = 0, meshHits = 0;
  const int kRays = 4000;
  for (int i = 0; i < kRays; ++i) {
    Ray ray;
    // Half from inside the box, a quarter from the camera, a quarter from
    // anywhere around it; some aimed at the icosphere.
    if (i % 4 < 2)
      ray.o = {inBox(random), inBox(random), inBox(random)};
    else if (i % 4 == 2)
      ray.o = {278, 278, -800};
    else
      ray.o = {around(random), around(random), around(random)};
    Vec3 d{unit(random), unit(random), unit(random)};
    if (i % 5 == 0)
      d = sub({370 + 80 * unit(random), 330 + 80 * unit(random),
               250 + 80 * unit(random)},
              ray.o);
    if (dot(d, d) < 1e-6f)
      d = {0, 0, 1};
    ray.d = normalized(d);
    float expected = bruteForce(ray, scene.triangles);
    float got = traverse(ray, flat);
    ASSERT_EQ(got, expected)
        << "ray " << i << " from (" << ray.o.x << ", " << ray.o.y << ", "
        << ray.o.z << ") along (" << ray.d.x << ", " << ray.d.y << ", "
        << ray.d.z << ")";
    hits += expected < kTMax;
    Vec3 p{ray.o.x + expected * ray.d.x, ray.o.y + expected * ray.d.y,
           ray.o.z + expected * ray.d.z};
    Vec3 r = sub(p, {370, 330, 250});
    meshHits += expected < kTMax && dot(r, r) < 81 * 81;
  }
  // The rays exercise both hits on the box and on the mesh, and misses.
  EXPECT_GT(hits, kRays / 2);
  EXPECT_LT(hits, kRays);
  EXPECT_GT(meshHits, kRays / 20);
}

TEST(PathtracerBvh, DegenerateInputsStayWithinLimits) {
  // 1,000 copies of one triangle: no SAH split exists, the median splits.
  std::vector<pt::Triangle> same(
      1000, pt::Triangle{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, 0});
  pt::Bvh bvh;
  ASSERT_TRUE(pt::buildBvh(same, bvh).ok());
  pt::Scene scene;
  scene.triangles = same;
  EXPECT_EQ(checkTree(flatten(scene, bvh), same.size()), bvh.depth);
  // Triangles at 2^k along x: SAH alone peels one off per level (depth
  // ~100); the depth budget forces median splits.
  std::vector<pt::Triangle> spread;
  for (int k = 0; k < 100; ++k) {
    float x = std::ldexp(1.0f, k);
    spread.push_back({{x, 0, 0}, {x, 1, 0}, {x, 0, 1}, 0});
  }
  ASSERT_TRUE(pt::buildBvh(spread, bvh).ok());
  scene.triangles = spread;
  EXPECT_LE(checkTree(flatten(scene, bvh), spread.size()), 32u);
  // No triangle: no node (a scene of quads and spheres).
  ASSERT_TRUE(pt::buildBvh({}, bvh).ok());
  EXPECT_TRUE(bvh.nodes.empty());
  EXPECT_TRUE(bvh.order.empty());
}

//===----------------------------------------------------------------------===//
// Camera
//===----------------------------------------------------------------------===//

void expectNear(Vec3 got, Vec3 want, const char *what) {
  EXPECT_NEAR(got.x, want.x, 1e-6f) << what;
  EXPECT_NEAR(got.y, want.y, 1e-6f) << what;
  EXPECT_NEAR(got.z, want.z, 1e-6f) << what;
}

TEST(PathtracerCamera, BenchmarkCamera) {
  pt::Scene scene = loadOrDie("cornell-box.json");
  // forward (0, 0, 1); forward x up = (-1, 0, 0); tan(20 deg) = 0.363970234.
  const float tan20 = 0.363970234f;
  pt::CameraFrame square = pt::cameraFrame(scene.camera, 512, 512);
  expectNear(square.eye, {278, 278, -800}, "eye");
  expectNear(square.forward, {0, 0, 1}, "forward");
  expectNear(square.right, {-tan20, 0, 0}, "right");
  expectNear(square.up, {0, tan20, 0}, "up");
  pt::CameraFrame wide = pt::cameraFrame(scene.camera, 200, 100);
  expectNear(wide.right, {-2 * tan20, 0, 0}, "right 2:1");
  expectNear(wide.up, {0, tan20, 0}, "up 2:1");
}

TEST(PathtracerCamera, TiltedCamera) {
  // Looking along (1, 1, 0) with up +z, 90 degrees: forward (s, s, 0) with
  // s = 1/sqrt(2), right_unit = forward x up = (s, -s, 0), up' = (0, 0, 1).
  pt::Camera camera{{1, 2, 3}, {2, 3, 3}, {0, 0, 1}, 90};
  const float s = 0.707106781f;
  pt::CameraFrame frame = pt::cameraFrame(camera, 300, 100);
  expectNear(frame.forward, {s, s, 0}, "forward");
  expectNear(frame.right, {3 * s, -3 * s, 0}, "right");
  expectNear(frame.up, {0, 0, 1}, "up");
}

//===----------------------------------------------------------------------===//
// Bad input (section 1 "Errors")
//===----------------------------------------------------------------------===//

class PathtracerBadScene : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("sluice-pathtracer-test-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "tri.obj") << "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes `text` as a scene and returns the load error.
  std::string errorOf(const std::string &text,
                      const std::string &name = "scene.json") {
    std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    pt::Scene scene;
    rt::Status status = pt::loadScene(path, scene);
    EXPECT_FALSE(status.ok()) << text;
    EXPECT_EQ(status.kind(), rt::ErrorKind::InvalidArgument);
    EXPECT_EQ(status.message().rfind(path + ": ", 0), 0u)
        << "the message does not start with the file: " << status.message();
    return status.message();
  }

  // A valid scene with `extra` spliced in after the light quad's material
  // list, and `camera` / `light` replaceable.
  static std::string scene(const std::string &materials,
                           const std::string &rest) {
    return R"({"camera": {"eye": [0, 0, 0], "look_at": [0, 0, 1],
                          "up": [0, 1, 0], "fov_y_degrees": 60},
               "materials": {)" +
           materials + "}, " + rest + "}";
  }
  static constexpr const char *kLight =
      R"("lamp": {"kind": "diffuse", "emission": [1, 1, 1]})";
  static constexpr const char *kLightQuad =
      R"({"corner": [0, 0, 5], "edge_u": [1, 0, 0], "edge_v": [0, 1, 0],
          "material": "lamp"})";

  fs::path dir_;
};

TEST_F(PathtracerBadScene, AValidSceneLoads) {
  std::string path = (dir_ / "ok.json").string();
  std::ofstream(path) << scene(
      kLight, std::string(R"("quads": [)") + kLightQuad +
                  R"(], "meshes": [{"obj": "tri.obj", "center": [0, 0, 9],
                     "scale": 2, "material": "lamp"}])");
  pt::Scene loaded;
  rt::Status status = pt::loadScene(path, loaded);
  ASSERT_TRUE(status.ok()) << status.message();
  // The quad stays a quad; the mesh's one face is the only triangle.
  ASSERT_EQ(loaded.quads.size(), 1u);
  ASSERT_EQ(loaded.triangles.size(), 1u);
  EXPECT_EQ(loaded.triangles[0].v1, (Vec3{2, 0, 9}));
}

TEST_F(PathtracerBadScene, MissingFile) {
  pt::Scene scene;
  std::string path = (dir_ / "absent.json").string();
  rt::Status status = pt::loadScene(path, scene);
  EXPECT_EQ(status.message(), path + ": the scene file does not exist");
}

TEST_F(PathtracerBadScene, NotJson) {
  EXPECT_NE(errorOf("{\"camera\": [1, 2,,]}").find("not valid JSON"),
            std::string::npos);
}

TEST_F(PathtracerBadScene, MissingKey) {
  EXPECT_NE(errorOf(R"({"materials": {}})").find("missing key 'camera'"),
            std::string::npos);
  std::string message = errorOf(
      scene(kLight, R"("quads": [{"corner": [0, 0, 5], "edge_u": [1, 0, 0],
                            "material": "lamp"}])"));
  EXPECT_NE(message.find("quads[0]: missing key 'edge_v'"), std::string::npos)
      << message;
}

TEST_F(PathtracerBadScene, MistypedKey) {
  std::string message =
      errorOf(scene(kLight, R"("quads": [{"corner": [0, 0, 5], "edge_u": [1, 0],
                            "edge_v": [0, 1, 0], "material": "lamp"}])"));
  EXPECT_NE(message.find("quads[0].edge_u: expected an array of 3 numbers"),
            std::string::npos)
      << message;
  message = errorOf(scene(kLight, std::string(R"("quads": [)") + kLightQuad +
                                      R"(], "spheres": [{"center": [0, 0, 0],
                         "radius": "big", "material": "lamp"}])"));
  EXPECT_NE(message.find("spheres[0].radius: expected a number, got a string"),
            std::string::npos)
      << message;
  message =
      errorOf(scene(R"("lamp": {"kind": "diffuse", "emision": [1, 1, 1]})",
                    std::string(R"("quads": [)") + kLightQuad + "]"));
  EXPECT_NE(message.find("materials.lamp: unknown key 'emision'"),
            std::string::npos)
      << message;
}

TEST_F(PathtracerBadScene, UnknownMaterialNameOrKind) {
  std::string message = errorOf(
      scene(kLight, R"("quads": [{"corner": [0, 0, 5], "edge_u": [1, 0, 0],
                            "edge_v": [0, 1, 0], "material": "lmap"}])"));
  EXPECT_NE(message.find("quads[0].material: unknown material 'lmap'"),
            std::string::npos)
      << message;
  message = errorOf(scene(R"("lamp": {"kind": "plastic"})",
                          std::string(R"("quads": [)") + kLightQuad + "]"));
  EXPECT_NE(message.find("materials.lamp.kind: unknown material kind "
                         "'plastic'"),
            std::string::npos)
      << message;
}

TEST_F(PathtracerBadScene, ObjMissingOrUnparsable) {
  std::string message = errorOf(scene(
      kLight, std::string(R"("quads": [)") + kLightQuad +
                  R"(], "meshes": [{"obj": "nowhere.obj", "center": [0, 0, 0],
                     "scale": 1, "material": "lamp"}])"));
  EXPECT_NE(message.find("meshes[0].obj: OBJ file '"), std::string::npos)
      << message;
  EXPECT_NE(message.find("nowhere.obj' does not exist"), std::string::npos)
      << message;
  std::ofstream(dir_ / "bad.obj") << "v 0 0 0\nv 1 0 0\nf 1 2 7\n";
  message = errorOf(scene(kLight, std::string(R"("quads": [)") + kLightQuad +
                                      R"(], "meshes": [{"obj": "bad.obj",
                     "center": [0, 0, 0], "scale": 1, "material": "lamp"}])"));
  EXPECT_NE(message.find("bad.obj"), std::string::npos) << message;
  EXPECT_NE(message.find("meshes[0].obj"), std::string::npos) << message;
  std::ofstream(dir_ / "empty.obj") << "# nothing\n";
  message = errorOf(scene(kLight, std::string(R"("quads": [)") + kLightQuad +
                                      R"(], "meshes": [{"obj": "empty.obj",
                     "center": [0, 0, 0], "scale": 1, "material": "lamp"}])"));
  EXPECT_NE(message.find("empty.obj' does not parse: it has no faces"),
            std::string::npos)
      << message;
}

TEST_F(PathtracerBadScene, DegenerateQuad) {
  std::string message = errorOf(
      scene(kLight, R"("quads": [{"corner": [0, 0, 5], "edge_u": [1, 0, 0],
                            "edge_v": [2, 0, 0], "material": "lamp"}])"));
  EXPECT_NE(message.find("quads[0]: degenerate quad"), std::string::npos)
      << message;
}

TEST_F(PathtracerBadScene, NoLight) {
  std::string message =
      errorOf(scene(R"("grey": {"kind": "diffuse"})",
                    R"("quads": [{"corner": [0, 0, 5], "edge_u": [1, 0, 0],
                    "edge_v": [0, 1, 0], "material": "grey"}],
         "spheres": [{"center": [0, 0, 9], "radius": 1, "material": "grey"}])"));
  EXPECT_NE(message.find("the scene has no light"), std::string::npos)
      << message;
}

TEST_F(PathtracerBadScene, NegativeRadiusOrScale) {
  std::string message = errorOf(
      scene(kLight, std::string(R"("quads": [)") + kLightQuad +
                        R"(], "spheres": [{"center": [0, 0, 0], "radius": -1,
                     "material": "lamp"}])"));
  EXPECT_NE(message.find("spheres[0].radius: negative radius -1"),
            std::string::npos)
      << message;
  message = errorOf(scene(kLight, std::string(R"("quads": [)") + kLightQuad +
                                      R"(], "meshes": [{"obj": "tri.obj",
                     "center": [0, 0, 0], "scale": -2, "material": "lamp"}])"));
  EXPECT_NE(message.find("meshes[0].scale: negative scale -2"),
            std::string::npos)
      << message;
}

//===----------------------------------------------------------------------===//
// Bindings of a program
//===----------------------------------------------------------------------===//

std::vector<rt::BindingInfo> pathBindingInfos() {
  std::vector<rt::BindingInfo> infos;
  using E = rt::ElementType;
  for (auto [name, element] : {std::pair{"tri_verts", E::F32},
                               {"tri_mat", E::I32},
                               {"bvh_bounds", E::F32},
                               {"bvh_links", E::I32},
                               {"spheres", E::F32},
                               {"sphere_mat", E::I32},
                               {"quads", E::F32},
                               {"quad_mat", E::I32},
                               {"mat_kind", E::I32},
                               {"mat_data", E::F32},
                               {"lights", E::F32},
                               {"film", E::I64}}) {
    rt::BindingInfo info;
    info.name = name;
    info.element = element;
    info.shape = {-1};
    infos.push_back(info);
  }
  for (const char *name :
       {"width", "height", "sample_base", "seed", "texture_octaves"}) {
    rt::BindingInfo info;
    info.name = name;
    info.kind = rt::BindingKind::Uniform;
    infos.push_back(info);
  }
  for (const char *v : {"eye", "fwd", "right", "up"})
    for (const char *c : {"x", "y", "z"}) {
      rt::BindingInfo info;
      info.name = std::string("cam_") + v + "_" + c;
      info.kind = rt::BindingKind::Uniform;
      info.element = E::F32;
      infos.push_back(info);
    }
  return infos;
}

TEST(PathtracerBindings, ProgramBindingsAreChecked) {
  std::vector<rt::BindingInfo> infos = pathBindingInfos();
  EXPECT_TRUE(pt::checkPathBindings(infos).ok());
  std::vector<rt::BindingInfo> missing(infos.begin() + 1, infos.end());
  EXPECT_EQ(pt::checkPathBindings(missing).message(),
            "the program has no binding 'tri_verts' (docs/pathtracer.md "
            "section 2)");
  std::vector<rt::BindingInfo> wrong = infos;
  wrong[11].element = rt::ElementType::I32; // film
  EXPECT_EQ(pt::checkPathBindings(wrong).message(),
            "binding 'film' holds i32, but docs/pathtracer.md section 2 "
            "makes it i64");
  wrong = infos;
  wrong[12].kind = rt::BindingKind::Buffer; // width
  EXPECT_NE(pt::checkPathBindings(wrong).message().find("is a buffer"),
            std::string::npos);
  wrong = infos;
  wrong[0].shape = {16};
  EXPECT_NE(pt::checkPathBindings(wrong).message().find("has shape 16"),
            std::string::npos);
  std::vector<rt::BindingInfo> extra = infos;
  extra.push_back(infos[0]);
  extra.back().name = "occluders";
  EXPECT_EQ(pt::checkPathBindings(extra).message(),
            "binding 'occluders' of the program is not one of "
            "docs/pathtracer.md section 2");
}

TEST(PathtracerBindings, WrittenAsNpyFiles) {
  pt::Scene scene = loadOrDie("furnace.json");
  pt::Bvh bvh;
  ASSERT_TRUE(pt::buildBvh(scene.triangles, bvh).ok());
  std::vector<pt::NamedBuffer> bindings;
  ASSERT_TRUE(pt::flattenScene(scene, bvh, {3, 2, 1}, bindings).ok());
  fs::path dir = fs::temp_directory_path() /
                 ("sluice-pathtracer-npy-" + std::to_string(getpid()));
  fs::create_directories(dir);
  ASSERT_TRUE(pt::writeBindings(dir.string(), bindings).ok());
  std::ifstream args(dir / "args.txt");
  std::vector<std::string> lines;
  for (std::string line; std::getline(args, line);)
    lines.push_back(line);
  ASSERT_EQ(lines.size(), bindings.size());
  EXPECT_EQ(lines[0], "--bind tri_verts=" + (dir / "tri_verts.npy").string());
  EXPECT_EQ(lines[12], "--set width=3");
  EXPECT_EQ(lines[15], "--set seed=1");
  // furnace: eye (50, 50, 50), forward +z.
  EXPECT_EQ(lines[16], "--set cam_eye_x=50");
  EXPECT_EQ(lines[21], "--set cam_fwd_z=1");
  for (const pt::NamedBuffer &b : bindings) {
    if (b.value.shape.empty())
      continue;
    rt::HostBuffer back;
    rt::Status status = rt::readNpyFile((dir / (b.name + ".npy")).string(),
                                        b.value.element, b.name, back);
    ASSERT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(back.shape, b.value.shape) << b.name;
    EXPECT_EQ(back.bytes, b.value.bytes) << b.name;
  }
  fs::remove_all(dir);
}

//===----------------------------------------------------------------------===//
// Film and images
//===----------------------------------------------------------------------===//

TEST(PathtracerImage, FilmToLinear) {
  // 2 x 1 pixels, 4 samples: 2^24 * 4 * (0.5, 1, 0), (3, 0.25, 2^-24 / 4).
  const int64_t unit = int64_t(1) << 24;
  std::vector<int64_t> film{2 * unit, 4 * unit, 0, 12 * unit, unit, 1};
  pt::Image image;
  ASSERT_TRUE(pt::filmToImage(film, 2, 1, 4, image).ok());
  EXPECT_EQ(image.rgb,
            (std::vector<float>{0.5f, 1, 0, 3, 0.25f, float(0x1p-26)}));
  EXPECT_FALSE(pt::filmToImage(film, 3, 1, 4, image).ok());
}

TEST(PathtracerImage, PfmRoundTripAndLayout) {
  pt::Image image;
  image.width = 5;
  image.height = 3;
  for (int i = 0; i < 45; ++i)
    image.rgb.push_back(float(i) * 0.25f - 1.5f);
  fs::path path = fs::temp_directory_path() /
                  ("sluice-pathtracer-" + std::to_string(getpid()) + ".pfm");
  ASSERT_TRUE(pt::writePfm(path.string(), image).ok());
  // The bytes: the header, then the bottom row (y = 2) first, little-endian.
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  const std::string header = "PF\n5 3\n-1.0\n";
  ASSERT_EQ(bytes.size(), header.size() + 45 * 4);
  EXPECT_EQ(bytes.substr(0, header.size()), header);
  float first;
  std::memcpy(&first, &bytes[header.size()], 4);
  EXPECT_EQ(first, image.rgb[2 * 15]);
  const unsigned char *raw =
      reinterpret_cast<const unsigned char *>(&bytes[header.size()]);
  uint32_t bits = uint32_t(raw[0]) | uint32_t(raw[1]) << 8 |
                  uint32_t(raw[2]) << 16 | uint32_t(raw[3]) << 24;
  EXPECT_EQ(bits, std::bit_cast<uint32_t>(image.rgb[30]));
  pt::Image back;
  ASSERT_TRUE(pt::readPfm(path.string(), back).ok());
  EXPECT_EQ(back.width, 5u);
  EXPECT_EQ(back.height, 3u);
  EXPECT_EQ(back.rgb, image.rgb);
  // A truncated file is refused.
  std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() - 1);
  EXPECT_FALSE(pt::readPfm(path.string(), back).ok());
  fs::remove(path);
}

TEST(PathtracerImage, SrgbAtHandComputedPoints) {
  EXPECT_EQ(pt::srgbEncode(0), 0.0f);
  EXPECT_EQ(pt::srgbByte(0), 0);
  // 12.92 * 0.0031308 = 0.040449936; 255 * that = 10.31
  EXPECT_NEAR(pt::srgbEncode(0.0031308f), 0.040449936f, 1e-7f);
  EXPECT_EQ(pt::srgbByte(0.0031308f), 10);
  // 1.055 * 0.5^(1/2.4) - 0.055 = 1.055 * 0.7491535 - 0.055 = 0.7353569;
  // 255 * that = 187.52
  EXPECT_NEAR(pt::srgbEncode(0.5f), 0.7353569f, 1e-6f);
  EXPECT_EQ(pt::srgbByte(0.5f), 188);
  EXPECT_NEAR(pt::srgbEncode(1), 1.0f, 1e-6f);
  EXPECT_EQ(pt::srgbByte(1), 255);
  // 1.055 * 2^(1/2.4) - 0.055 = 1.055 * 1.3348399 - 0.055 = 1.3532561,
  // clamped to 1.
  EXPECT_NEAR(pt::srgbEncode(2), 1.3532561f, 1e-6f);
  EXPECT_EQ(pt::srgbByte(2), 255);
}

} // namespace
