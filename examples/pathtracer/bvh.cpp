//===- bvh.cpp - A binned-SAH BVH over the scene's triangles --------------===//
//
// Top-down: each node bins its triangles' centroids into kBins slabs per
// axis and takes the split of least surface-area cost (traversal 1,
// intersection 1 per triangle), or stays a leaf when that is cheaper and it
// holds at most kMaxLeafTriangles. A node whose SAH split would leave a child
// that cannot fit in the remaining depth, or whose centroids all coincide,
// splits at the median instead; so every input of up to 4 * 2^31 triangles
// gets a tree within kMaxBvhDepth.
//
//===----------------------------------------------------------------------===//

#include "scene.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace sluice::pathtracer {
namespace {

constexpr int kBins = 16;

struct Box {
  float lo[3] = {std::numeric_limits<float>::infinity(),
                 std::numeric_limits<float>::infinity(),
                 std::numeric_limits<float>::infinity()};
  float hi[3] = {-std::numeric_limits<float>::infinity(),
                 -std::numeric_limits<float>::infinity(),
                 -std::numeric_limits<float>::infinity()};

  void grow(const float p[3]) {
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], p[a]);
      hi[a] = std::max(hi[a], p[a]);
    }
  }
  void grow(const Box &b) {
    grow(b.lo);
    grow(b.hi);
  }
  bool empty() const { return lo[0] > hi[0]; }
  double area() const {
    if (empty())
      return 0;
    double dx = double(hi[0]) - lo[0], dy = double(hi[1]) - lo[1],
           dz = double(hi[2]) - lo[2];
    return 2 * (dx * dy + dy * dz + dz * dx);
  }
};

struct Primitive {
  Box box;
  float centroid[3];
};

// The fewest levels (nodes on the longest path) a subtree of `count`
// triangles needs: median splits halve it until a leaf holds at most
// kMaxLeafTriangles.
uint32_t levelsNeeded(uint64_t count) {
  uint32_t levels = 1;
  for (uint64_t leaves = (count + kMaxLeafTriangles - 1) / kMaxLeafTriangles;
       leaves > 1; leaves = (leaves + 1) / 2)
    ++levels;
  return levels;
}

class Builder {
public:
  Builder(std::span<const Triangle> triangles, Bvh &out)
      : out_(out), primitives_(triangles.size()) {
    for (size_t i = 0; i < triangles.size(); ++i) {
      const Triangle &t = triangles[i];
      Primitive &p = primitives_[i];
      for (const Vec3 &v : {t.v0, t.v1, t.v2}) {
        float q[3] = {v.x, v.y, v.z};
        p.box.grow(q);
      }
      for (int a = 0; a < 3; ++a)
        p.centroid[a] = 0.5f * p.box.lo[a] + 0.5f * p.box.hi[a];
    }
    out_.order.resize(triangles.size());
    for (size_t i = 0; i < triangles.size(); ++i)
      out_.order[i] = uint32_t(i);
  }

  void build() {
    out_.nodes.assign(1, BvhNode());
    out_.depth = 0;
    buildNode(0, 0, uint32_t(out_.order.size()), 1);
  }

private:
  struct Split {
    int axis = -1;
    int bin = 0; // left side: bins [0, bin)
    double cost = 0;
  };

  Box boundsOf(uint32_t begin, uint32_t end, Box &centroids) const {
    Box box;
    for (uint32_t i = begin; i < end; ++i) {
      const Primitive &p = primitives_[out_.order[i]];
      box.grow(p.box);
      centroids.grow(p.centroid);
    }
    return box;
  }

  int binOf(const Primitive &p, int axis, const Box &centroids) const {
    float extent = centroids.hi[axis] - centroids.lo[axis];
    int bin = int(kBins * ((p.centroid[axis] - centroids.lo[axis]) / extent));
    return std::clamp(bin, 0, kBins - 1);
  }

  Split bestSplit(uint32_t begin, uint32_t end, const Box &box,
                  const Box &centroids) const {
    Split best;
    best.cost = std::numeric_limits<double>::infinity();
    double parentArea = box.area();
    for (int axis = 0; axis < 3; ++axis) {
      if (!(centroids.hi[axis] > centroids.lo[axis]))
        continue;
      std::array<Box, kBins> bins;
      std::array<uint32_t, kBins> counts{};
      for (uint32_t i = begin; i < end; ++i) {
        const Primitive &p = primitives_[out_.order[i]];
        int b = binOf(p, axis, centroids);
        bins[b].grow(p.box);
        ++counts[b];
      }
      // rightArea[b], rightCount[b]: bins [b, kBins).
      std::array<double, kBins> rightArea{};
      std::array<uint32_t, kBins> rightCount{};
      Box right;
      uint32_t count = 0;
      for (int b = kBins - 1; b > 0; --b) {
        right.grow(bins[b]);
        count += counts[b];
        rightArea[b] = right.area();
        rightCount[b] = count;
      }
      Box left;
      count = 0;
      for (int b = 1; b < kBins; ++b) {
        left.grow(bins[b - 1]);
        count += counts[b - 1];
        if (count == 0 || rightCount[b] == 0)
          continue;
        double cost =
            parentArea > 0
                ? 1 + (left.area() * count + rightArea[b] * rightCount[b]) /
                          parentArea
                : 1 + 0.5 * (count + rightCount[b]);
        if (cost < best.cost) {
          best.cost = cost;
          best.axis = axis;
          best.bin = b;
        }
      }
    }
    return best;
  }

  // Splits [begin, end) in half along the centroids' longest axis.
  uint32_t medianSplit(uint32_t begin, uint32_t end, const Box &centroids) {
    int axis = 0;
    for (int a = 1; a < 3; ++a)
      if (centroids.hi[a] - centroids.lo[a] >
          centroids.hi[axis] - centroids.lo[axis])
        axis = a;
    uint32_t middle = begin + (end - begin) / 2;
    std::nth_element(out_.order.begin() + begin, out_.order.begin() + middle,
                     out_.order.begin() + end, [&](uint32_t a, uint32_t b) {
                       float ca = primitives_[a].centroid[axis],
                             cb = primitives_[b].centroid[axis];
                       return ca < cb || (ca == cb && a < b);
                     });
    return middle;
  }

  void buildNode(uint32_t node, uint32_t begin, uint32_t end, uint32_t depth) {
    out_.depth = std::max(out_.depth, depth);
    Box centroids;
    Box box = boundsOf(begin, end, centroids);
    BvhNode &n = out_.nodes[node];
    std::copy(box.lo, box.lo + 3, n.bounds);
    std::copy(box.hi, box.hi + 3, n.bounds + 3);
    uint32_t count = end - begin;
    auto makeLeaf = [&] {
      out_.nodes[node].first = int32_t(begin);
      out_.nodes[node].count = int32_t(count);
    };
    if (count == 1)
      return makeLeaf();

    Split split = bestSplit(begin, end, box, centroids);
    uint32_t middle = 0;
    if (split.axis >= 0) {
      if (count <= kMaxLeafTriangles && split.cost >= double(count))
        return makeLeaf();
      auto start = out_.order.begin() + begin;
      middle =
          begin + uint32_t(std::partition(start, out_.order.begin() + end,
                                          [&](uint32_t t) {
                                            return binOf(primitives_[t],
                                                         split.axis,
                                                         centroids) < split.bin;
                                          }) -
                           start);
      uint32_t budget = kMaxBvhDepth - depth; // levels left below this node
      if (levelsNeeded(middle - begin) > budget ||
          levelsNeeded(end - middle) > budget)
        middle = 0; // too deep: split at the median instead
    } else if (count <= kMaxLeafTriangles) {
      return makeLeaf(); // the centroids coincide
    }
    if (middle <= begin || middle >= end)
      middle = medianSplit(begin, end, centroids);

    uint32_t left = uint32_t(out_.nodes.size());
    out_.nodes[node].first = int32_t(left);
    out_.nodes[node].count = 0;
    out_.nodes.resize(out_.nodes.size() + 2);
    buildNode(left, begin, middle, depth + 1);
    buildNode(left + 1, middle, end, depth + 1);
  }

  Bvh &out_;
  std::vector<Primitive> primitives_;
};

} // namespace

Status buildBvh(std::span<const Triangle> triangles, Bvh &out) {
  auto invalid = [](std::string message) {
    return Status::error(runtime::ErrorKind::InvalidArgument,
                         std::move(message));
  };
  out = Bvh();
  if (triangles.empty())
    return Status::success(); // no nodes: the traversal tests nothing
  if (triangles.size() > size_t(std::numeric_limits<int32_t>::max()))
    return invalid("the BVH takes at most 2^31 - 1 triangles, got " +
                   std::to_string(triangles.size()));
  Builder(triangles, out).build();
  if (out.depth > kMaxBvhDepth)
    return invalid("the BVH of " + std::to_string(triangles.size()) +
                   " triangles is " + std::to_string(out.depth) +
                   " levels deep; the traversal stack holds " +
                   std::to_string(kMaxBvhDepth));
  for (size_t i = 0; i < out.nodes.size(); ++i)
    if (out.nodes[i].count > int32_t(kMaxLeafTriangles))
      return invalid("BVH leaf " + std::to_string(i) + " holds " +
                     std::to_string(out.nodes[i].count) +
                     " triangles; a leaf holds at most " +
                     std::to_string(kMaxLeafTriangles));
  return Status::success();
}

} // namespace sluice::pathtracer
