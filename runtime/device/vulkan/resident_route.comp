#version 460
// The device placement's routing dispatch on Vulkan: after the stage kernel
// of the iteration, one invocation per dispatched invocation moves its
// frame or item slot to the stage its outcome names (the bit sets of
// resident_layout.h), adds published items to their owner's first stage and
// released slots to the owner's free ring, with per-workgroup tallies and
// one global atomic per counter and workgroup. The HIP kernel's
// runAndRoute() and its tallies are the same algorithm.
#extension GL_GOOGLE_include_directive : require
#define SLUICE_NO_SHARED_WRITES // resident_common.glsl
#include "resident_common.glsl"

layout(local_size_x = BLOCK) in;

shared uint stageAdds_[MAX_STAGES];
shared int liveAdds_[MAX_OWNERS];
shared uint publishedAdds_[MAX_OWNERS], releasedAdds_[MAX_OWNERS];
shared uint finished_, orderAdds_;

void routeBad(Layout L, uint i) {
  atomicMin(U32s(L.control).v[CONTROL_DETAIL], i);
}

void routeSetBit(Layout L, uint first, uint index) {
  atomicOr(U32s(L.sets).v[first + index / 32], 1u << (index % 32));
}

void routeRelease(Layout L, uint owner, uint index) {
  uint64_t tail =
      atomicAdd(U64s(L.ringPositions).v[2 * owner + 1], uint64_t(1));
  U32s(L.freeRing).v[ringOffset_[owner] + uint(tail % capacity_[owner])] =
      index;
  atomicAdd(releasedAdds_[owner], 1u);
}

#include "resident_route_one.glsl"

void main() {
  Layout L = Layout(push.layoutAddress);
  U32s control = U32s(L.control);
  uint t = gl_LocalInvocationID.x;
  loadTables(L);
  uint stage = R32s(L.control).v[CONTROL_PREVIOUS_STAGE];
  uint count = R32s(L.control).v[CONTROL_PREVIOUS_COUNT];
  for (uint s = t; s < L.stageCount; s += BLOCK)
    stageAdds_[s] = 0;
  for (uint o = t; o < L.ownerCount; o += BLOCK) {
    liveAdds_[o] = 0;
    publishedAdds_[o] = 0;
    releasedAdds_[o] = 0;
  }
  if (t == 0) {
    finished_ = 0;
    orderAdds_ = 0;
  }
  barrier();
  uint i = gl_WorkGroupID.x * BLOCK + t;
  if (i < count)
    route(L, stage, i);
  barrier();
  // The workgroup's tallies.
  U32s stageCounts = U32s(L.stageCounts);
  for (uint s = t; s < L.stageCount; s += BLOCK)
    if (stageAdds_[s] != 0)
      atomicAdd(stageCounts.v[s], stageAdds_[s]);
  uint record = R32s(L.control).v[CONTROL_RECORDS] - 1;
  U64s deltas = U64s(L.deltas + uint64_t(record) * DELTA_WORDS * 8);
  for (uint o = t; o < L.ownerCount; o += BLOCK) {
    if (liveAdds_[o] != 0)
      atomicAdd(U32s(L.ownerLive).v[o], uint(liveAdds_[o]));
    if (publishedAdds_[o] != 0) {
      atomicAdd(U64s(L.ownerPublished).v[o], uint64_t(publishedAdds_[o]));
      atomicAdd(deltas.v[0], uint64_t(publishedAdds_[o]));
    }
    if (releasedAdds_[o] != 0) {
      atomicAdd(U64s(L.ownerReleased).v[o], uint64_t(releasedAdds_[o]));
      atomicAdd(deltas.v[1], uint64_t(releasedAdds_[o]));
    }
  }
  if (t == 0 && orderAdds_ != 0)
    atomicAdd(deltas.v[2], uint64_t(orderAdds_)); // the low 32 bits count
  if (t == 0 && finished_ != 0) {
    U64s scalars = U64s(L.scalars);
    atomicAdd(scalars.v[SCALAR_FREE], uint64_t(finished_));
    atomicAdd(scalars.v[SCALAR_FINISHED], uint64_t(finished_));
  }
}
