#version 460
// The device placement's sort dispatch on Vulkan: a sorted dispatch of more
// than one run of FrameSorting::partition frames, after the scheduler (and
// the select dispatch) chose and selected it, sorted a run per workgroup
// (each on its own: sortByKey at the run's offsets). Recorded only in runs
// that sort in partitions with a frame pool larger than a partition; the
// scheduler gives it zero groups in iterations that need no sort.
// The HIP kernel's gridSort() sorts partitions the same way, a run per block.
#extension GL_GOOGLE_include_directive : require
#include "resident_common.glsl"
#extension GL_KHR_shader_subgroup_ballot : require
#include "resident_sort.glsl"

layout(local_size_x = BLOCK) in;

void main() {
  Layout L = Layout(push.layoutAddress);
  uint stage = R32s(L.control).v[CONTROL_PREVIOUS_STAGE];
  uint count = R32s(L.control).v[CONTROL_PREVIOUS_COUNT];
  uint run = L.sortPartition;
  for (uint first = gl_WorkGroupID.x * run; first < count;
       first += gl_NumWorkGroups.x * run) {
    sortByKey(L, stage, first, min(run, count - first), count);
    sync(); // pool_ and the run's words are free again
  }
}
