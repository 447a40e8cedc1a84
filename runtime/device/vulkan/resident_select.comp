#version 460
// The device placement's grid selection on Vulkan: for sets too large for
// the scheduler's shared copy (and a dispatch without sorting, or one that
// the sort dispatch sorts in partitions afterwards), after the
// scheduler dispatch has decided and written each 32-word chunk's first
// rank to chunkRanks, one subgroup per chunk takes the refill's lowest free
// frames (lane ids, entry bits) and the selection's lowest members of the
// chosen stage (invocations), and the workgroups copy the admission
// windows. The scheduler's grid for it is zero otherwise. The HIP kernel's
// gridSelect() is the same algorithm (runtime/device/hip/resident_kernel.hip).
#extension GL_GOOGLE_include_directive : require
#define SLUICE_NO_SHARED_WRITES // resident_common.glsl
#include "resident_common.glsl"
#include "resident_chunks.glsl"
#ifdef SLUICE_PROFILE
// SLUICE_VULKAN_PROFILE=1: invocation 0 of every workgroup reads the
// subgroup clock at the ends of the five parts and adds each part's cycles
// to push.profile's words 16-20; word 21 counts the workgroups, word 22 the
// dispatches (workgroup 0's).
#extension GL_ARB_shader_clock : require
uint64_t marks_[6];
#define MARK(k)                                                                \
  if (gl_LocalInvocationID.x == 0)                                             \
    marks_[k] = clockARB();
void profileEnd() {
  if (gl_LocalInvocationID.x != 0)
    return;
  U64s sums = U64s(push.profile);
  for (uint k = 0; k < 5; ++k)
    atomicAdd(sums.v[16 + k], marks_[k + 1] - marks_[k]);
  atomicAdd(sums.v[21], 1ul);
  if (gl_WorkGroupID.x == 0)
    atomicAdd(sums.v[22], 1ul);
}
#else
#define MARK(k)
void profileEnd() {}
#endif

layout(local_size_x = BLOCK) in;

void main() {
  MARK(0)
  Layout L = Layout(push.layoutAddress);
  loadTables(L);
  barrier();
  MARK(1)
  R32s head = R32s(L.chunkRanks);
  uint stage = R32s(L.control).v[CONTROL_PREVIOUS_STAGE];
  uint count = R32s(L.control).v[CONTROL_PREVIOUS_COUNT];
  uint refilled = head.v[0];
  uint64_t firstLane = uint64_t(head.v[1]) | (uint64_t(head.v[2]) << 32);
  uint freeChunks = head.v[3], stageChunks = head.v[4];
  uint size = chunkLanes();
  uint lane = gl_SubgroupInvocationID;
  bool taking = lane < size;
  uint slots = 32 / size;
  uint group = gl_WorkGroupID.x * gl_NumSubgroups + gl_SubgroupID;
  uint groups = gl_NumWorkGroups.x * gl_NumSubgroups;
  U32s sets = U32s(L.sets);
  uint freeOffset = setOffset_[L.stageCount], freeWords = setWords_[L.stageCount];
  uint entryOffset = setOffset_[L.entryStage];
  uint stageOffset = setOffset_[stage], stageWords = setWords_[stage];
  // A subgroup takes the same chunks of the free set and of the stage's, so
  // a refilled frame's entry bit is its own invocation's write when the
  // stage is the entry stage.
  for (uint c = group; refilled != 0 && c < freeChunks; c += groups) {
    uint base = head.v[GRID_SELECT_HEADER + c];
    if (base >= refilled)
      break; // the ranks grow with c: the same in the whole subgroup
    for (uint s = 0; s < slots; ++s) {
      uint w = c * 32 + s * size + lane;
      uint bits = taking && w < freeWords ? sets.v[freeOffset + w] : 0;
      uint before = bits;
      base += takeFromWords(bits, c * 32 + s * size, base, refilled,
                            U32s(L.laneIds), true, firstLane);
      if (taking && w < freeWords && bits != before) {
        sets.v[freeOffset + w] = bits;
        sets.v[entryOffset + w] |= before & ~bits;
      }
    }
  }
  MARK(2)
  uint stageRanks = GRID_SELECT_HEADER + freeChunks + 1;
  for (uint c = group; c < stageChunks; c += groups) {
    uint base = head.v[stageRanks + c];
    if (base >= count)
      break;
    for (uint s = 0; s < slots; ++s) {
      uint w = c * 32 + s * size + lane;
      uint bits = taking && w < stageWords ? sets.v[stageOffset + w] : 0;
      uint before = bits;
      base += takeFromWords(bits, c * 32 + s * size, base, count,
                            U32s(L.invocations), false, 0);
      if (taking && w < stageWords && bits != before)
        sets.v[stageOffset + w] = bits;
    }
  }
  // The invocations' outcomes and publish counts, and the admission
  // windows (their sizes: the allocation limits).
  MARK(3)
  uint thread = gl_GlobalInvocationID.x;
  uint threads = gl_NumWorkGroups.x * BLOCK;
  resetInvocations(L, stage, count, thread, threads);
  MARK(4)
  if (stage < L.mainStageCount)
    for (uint e = producerBegin_[stage]; e < producerBegin_[stage + 1]; ++e) {
      uint owner = edgeOwner_[e];
      copyEarlierWindow(L, owner,
                 uint(R64s(L.ringPositions).v[2 * owner] % capacity_[owner]),
                 uint(R32s(L.allocLimits).v[owner]), thread, threads);
    }
  MARK(5)
  profileEnd();
}
