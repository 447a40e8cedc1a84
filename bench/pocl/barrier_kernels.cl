// The barrier kernels of examples/barrier/*.mlir in OpenCL C, same sizes and
// work-group shapes, for PoCL.

kernel void reduce(global const uint *in, global uint *out) {
  local uint partial[256];
  uint tid = get_local_id(0);
  partial[tid] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k < 8; ++k) {
    uint stride = 128u >> k;
    if (tid < stride)
      partial[tid] += partial[tid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (tid == 0)
    out[get_group_id(0)] = partial[0];
}

kernel void scan(global const uint *in, global uint *out) {
  local uint buf[256];
  uint tid = get_local_id(0);
  size_t g = get_global_id(0);
  buf[tid] = in[g];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k < 8; ++k) {
    uint offset = 1u << k;
    uint sum = buf[tid];
    if (tid >= offset)
      sum += buf[tid - offset];
    barrier(CLK_LOCAL_MEM_FENCE);
    buf[tid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  out[g] = buf[tid];
}

kernel void transpose(global const uint *in, global uint *out) {
  local uint tile[16][17];
  uint tx = get_local_id(0), ty = get_local_id(1);
  uint col0 = get_group_id(0) * 16, row0 = get_group_id(1) * 16;
  tile[ty][tx] = in[(size_t)(row0 + ty) * 4096 + col0 + tx];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[(size_t)(col0 + ty) * 4096 + row0 + tx] = tile[tx][ty];
}

kernel void rounds(global const uint *in, global const uint *trips, global uint *out) {
  local uint buf[256];
  uint tid = get_local_id(0);
  size_t g = get_global_id(0);
  uint mine = in[g];
  uint t = trips[get_group_id(0)];
  uint right = (tid + 1) % 256;
  uint acc = 0;
  for (uint round = 0; round < t; ++round) {
    buf[tid] = mine + round;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint w = buf[right];
    barrier(CLK_LOCAL_MEM_FENCE);
    acc += w;
  }
  out[g] = acc;
}
