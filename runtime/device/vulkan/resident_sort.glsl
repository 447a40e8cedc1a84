// Coherence sorting on the device (frame_order.h's key codes and order),
// shared by the scheduler dispatch (resident_schedule.comp: a dispatch of
// one run) and the sort dispatch (resident_sort.comp: one workgroup per run
// of FrameSorting::partition frames). The HIP kernel's sortByKey() is the
// same algorithm (runtime/device/hip/resident_kernel.hip).
//
// Needs resident_common.glsl, GL_KHR_shader_subgroup_ballot and
// `layout(local_size_x = BLOCK)`.

shared uint scan_[BLOCK];
shared uint64_t lows_[BLOCK], highs_[BLOCK];
// The sort's working memory (its histogram, or a shared sort's codes and
// frames); the scheduler keeps the sets' words here before it sorts.
#define POOL_WORDS (16 * BLOCK)
shared uint pool_[POOL_WORDS];

// Exclusive prefix sum over the workgroup; `total` gets the sum: a scan
// per subgroup, then one over the subgroups' totals (two barriers, where a
// scan over shared memory took two per step).
uint blockScan(uint value, out uint total) {
  uint inclusive = subgroupInclusiveAdd(value);
  if (gl_SubgroupInvocationID == gl_SubgroupSize - 1)
    scan_[gl_SubgroupID] = inclusive;
  barrier();
  uint before = 0;
  total = 0;
  for (uint k = 0; k < gl_NumSubgroups; ++k) {
    uint subtotal = scan_[k];
    before += k < gl_SubgroupID ? subtotal : 0;
    total += subtotal;
  }
  barrier(); // scan_ is free again
  return before + inclusive - value;
}

//===----------------------------------------------------------------------===//
// Coherence sorting (frame_order.h's key codes)
//===----------------------------------------------------------------------===//

uint loadByte(uint64_t address) {
  uint word = R32s(address & ~uint64_t(3)).v[0]; // the frames
  return (word >> (uint(address & 3) * 8)) & 0xFFu;
}

uint64_t loadKey(uint64_t address, uint bytes) {
  if (bytes == 4 && (address & 3) == 0) // an i32 or f32 column: one load
    return uint64_t(R32s(address).v[0]);
  if (bytes == 8 && (address & 7) == 0)
    return R64s(address).v[0];
  uint64_t value = 0;
  for (uint b = 0; b < bytes; ++b)
    value |= uint64_t(loadByte(address + b)) << (8 * b);
  return value;
}

uint64_t keyCode(uint64_t address, uint bytes, uint kind, uint buckets) {
  const uint64_t sign = uint64_t(1) << 63;
  uint64_t raw = loadKey(address, bytes);
  int64_t integer = 0;
  if (kind == 0) {
    uint shift = 64 - 8 * bytes;
    integer = int64_t(raw << shift) >> shift; // sign-extended
    if (buckets == 0)
      return uint64_t(integer) ^ sign;
  } else {
    double floating = bytes == 4 ? double(uintBitsToFloat(uint(raw)))
                                 : uint64BitsToDouble(raw);
    if (buckets == 0) {
      if (isnan(floating))
        return ~uint64_t(0);
      if (floating == 0)
        floating = 0;
      uint64_t bits = doubleBitsToUint64(floating);
      return (bits & sign) != 0 ? ~bits : bits | sign;
    }
    if (isnan(floating))
      return uint64_t(buckets - 1);
    floating = floor(floating);
    if (floating >= 9223372036854775808.0LF)
      integer = 0x7FFFFFFFFFFFFFFFL;
    else if (floating < -9223372036854775808.0LF)
      integer = -0x7FFFFFFFFFFFFFFFL - 1;
    else
      integer = int64_t(floating);
  }
  int64_t remainder = integer % int64_t(buckets);
  return uint64_t(remainder < 0 ? remainder + int64_t(buckets) : remainder);
}

// The subgroup's lowest and highest 64-bit value, from 32-bit operations
// (64-bit subgroup arithmetic is an extension): the highest word first,
// then the lowest word among the lanes that hold it.
uint64_t subgroupMin64(uint64_t value) {
  uint high = subgroupMin(uint(value >> 32));
  uint low = subgroupMin(uint(value >> 32) == high ? uint(value) : 0xFFFFFFFFu);
  return (uint64_t(high) << 32) | low;
}
uint64_t subgroupMax64(uint64_t value) {
  uint high = subgroupMax(uint(value >> 32));
  uint low = subgroupMax(uint(value >> 32) == high ? uint(value) : 0u);
  return (uint64_t(high) << 32) | low;
}

// The lowest and highest of the workgroup's values (every invocation gets
// them): per subgroup, then over the subgroups' results in shared memory.
void workgroupRange(inout uint64_t lowest, inout uint64_t highest) {
  lowest = subgroupMin64(lowest);
  highest = subgroupMax64(highest);
  if (subgroupElect()) {
    lows_[gl_SubgroupID] = lowest;
    highs_[gl_SubgroupID] = highest;
  }
  sync();
  for (uint g = 0; g < gl_NumSubgroups; ++g) {
    lowest = min(lowest, lows_[g]);
    highest = max(highest, highs_[g]);
  }
  barrier(); // lows_ and highs_ are free again
}

uint spanBits(uint64_t span) {
  uint bits = 0;
  while (bits < 64 && (span >> bits) != 0)
    ++bits;
  return bits;
}

uint ballotCount(uvec4 mask) {
  return bitCount(mask.x) + bitCount(mask.y) + bitCount(mask.z) +
         bitCount(mask.w);
}

// sortByKey for a dispatch of at most SORT_ROUNDS elements per invocation
// whose codes span at most 32 bits, in shared memory (pool_: the codes
// relative to the lowest, the frames, then the counts per digit and
// subgroup); false, having changed nothing, when the codes span more.
// Subgroup g holds elements [g * SORT_ROUNDS * size, ...) in rounds of
// `size` consecutive ones. A pass over 4 bits ranks each element within its
// subgroup by (digit, round, lane): the lanes with its digit are the AND of
// four ballots (a multisplit); a scan over (digit, subgroup) gives each
// subgroup's base per digit; the elements go to their places in pool_ (each
// invocation has read its own before any is written) or, in the last pass,
// as frames straight to the invocations.
#define SORT_ROUNDS 4
#define SORT_LIMIT (SORT_ROUNDS * BLOCK)
bool sortInShared(Layout L, uint first, uint count, uint keyBytes, uint kind,
                  uint step, uint64_t frames) {
  uint t = gl_LocalInvocationID.x;
  uint size = gl_SubgroupSize, lane = gl_SubgroupInvocationID;
  uint group = gl_SubgroupID, groups = gl_NumSubgroups;
  U32s invocations = U32s(L.invocations + 4 * uint64_t(first));
  uint frame_[SORT_ROUNDS], code_[SORT_ROUNDS], digit_[SORT_ROUNDS],
      rank_[SORT_ROUNDS];
  uint64_t full_[SORT_ROUNDS];
  uint64_t lowest = ~uint64_t(0), highest = 0;
  [[unroll]] for (uint r = 0; r < SORT_ROUNDS; ++r) {
    uint e = (group * SORT_ROUNDS + r) * size + lane;
    frame_[r] = e < count ? invocations.v[e] : 0;
  }
  [[unroll]] for (uint r = 0; r < SORT_ROUNDS; ++r) {
    uint e = (group * SORT_ROUNDS + r) * size + lane;
    full_[r] = e < count ? keyCode(frames + uint64_t(frame_[r]) * step,
                                   keyBytes, kind, L.sortBuckets)
                         : 0;
    if (e < count) {
      lowest = min(lowest, full_[r]);
      highest = max(highest, full_[r]);
    }
  }
  workgroupRange(lowest, highest);
  uint bits = spanBits(highest - lowest);
  if (bits > 32)
    return false;
  [[unroll]] for (uint r = 0; r < SORT_ROUNDS; ++r)
    code_[r] = uint(full_[r] - lowest);
  const uint counts = 2 * SORT_LIMIT, entries = 16 * groups;
  for (uint shift = 0; shift < bits; shift += 4) {
    bool last = shift + 4 >= bits;
    for (uint k = t; k < entries; k += BLOCK)
      pool_[counts + k] = 0;
    [[unroll]] for (uint r = 0; r < SORT_ROUNDS; ++r) {
      uint e = (group * SORT_ROUNDS + r) * size + lane;
      if (shift != 0 && e < count) {
        code_[r] = pool_[e];
        frame_[r] = pool_[SORT_LIMIT + e];
      }
      digit_[r] = e < count ? (code_[r] >> shift) & 15 : 16; // 16: none
    }
    barrier();
    [[unroll]] for (uint r = 0; r < SORT_ROUNDS; ++r) {
      bool valid = digit_[r] < 16;
      uvec4 peers = subgroupBallot(valid);
      for (uint b = 0; b < 4; ++b) {
        bool set = ((digit_[r] >> b) & 1) != 0;
        uvec4 with = subgroupBallot(valid && set);
        peers &= set ? with : ~with;
      }
      uint below = ballotCount(peers & gl_SubgroupLtMask);
      uint slot = counts + (valid ? digit_[r] : 0) * groups + group;
      uint before = valid ? pool_[slot] : 0;
      rank_[r] = before + below;
      subgroupMemoryBarrierShared();
      subgroupBarrier();
      if (valid && below == 0) // the lowest lane with the digit
        pool_[slot] = before + ballotCount(peers);
      subgroupMemoryBarrierShared();
      subgroupBarrier();
    }
    barrier();
    uint per = (entries + BLOCK - 1) / BLOCK;
    uint begin = min(t * per, entries), end = min(begin + per, entries);
    uint sum = 0;
    for (uint k = begin; k < end; ++k)
      sum += pool_[counts + k];
    uint total;
    uint running = blockScan(sum, total);
    for (uint k = begin; k < end; ++k) {
      uint c = pool_[counts + k];
      pool_[counts + k] = running;
      running += c;
    }
    barrier();
    [[unroll]] for (uint r = 0; r < SORT_ROUNDS; ++r)
      if (digit_[r] < 16) {
        uint position = pool_[counts + digit_[r] * groups + group] + rank_[r];
        if (last) {
          invocations.v[position] = frame_[r];
        } else {
          pool_[position] = code_[r];
          pool_[SORT_LIMIT + position] = frame_[r];
        }
      }
    sync();
  }
  return true;
}

// Orders invocations[first, first + count) stably by key code: an LSD radix
// sort over 4-bit digits of (code - lowest), the bits the range spans; in
// shared memory where it fits (sortInShared), else through device memory,
// at the same offsets of scratch and of both halves of codes (`total`: the
// dispatch's count), so that workgroups sorting other runs of the dispatch
// never share a word. There the first loop copies the frames into scratch
// as it reads them, so that an odd number of passes can start from the copy
// and every sort ends in invocations (no copy back).
void sortByKey(Layout L, uint stage, uint first, uint count, uint total) {
  R32s keys = R32s(L.sortKeys);
  uint keyBytes = keys.v[4 * stage], kind = keys.v[4 * stage + 1],
       step = keys.v[4 * stage + 2], column = keys.v[4 * stage + 3];
  U32s from = U32s(L.invocations + 4 * uint64_t(first)),
       to = U32s(L.scratch + 4 * uint64_t(first));
  U64s codes = U64s(L.codes + 8 * uint64_t(first)),
       codesTo = U64s(L.codes + 8 * (uint64_t(total) + first));
  uint64_t frames = L.frames + column;
  uint t = gl_LocalInvocationID.x;
  if (count <= SORT_LIMIT && gl_NumSubgroups * gl_SubgroupSize == BLOCK &&
      2 * SORT_LIMIT + 16 * gl_NumSubgroups <= POOL_WORDS &&
      sortInShared(L, first, count, keyBytes, kind, step, frames))
    return;
  uint64_t lowest = ~uint64_t(0), highest = 0;
  // Eight invocations at a time: their frames, then their keys, then the
  // codes (the loads of one round in flight together: one workgroup sorts).
  for (uint i0 = t; i0 < count; i0 += 8 * BLOCK) {
    uint frame_[8];
    [[unroll]] for (uint k = 0; k < 8; ++k) {
      uint i = i0 + k * BLOCK;
      frame_[k] = i < count ? from.v[i] : 0;
    }
    [[unroll]] for (uint k = 0; k < 8; ++k)
      if (i0 + k * BLOCK < count)
        to.v[i0 + k * BLOCK] = frame_[k];
    uint64_t code_[8];
    [[unroll]] for (uint k = 0; k < 8; ++k)
      code_[k] = i0 + k * BLOCK < count
                     ? keyCode(frames + uint64_t(frame_[k]) * step, keyBytes,
                               kind, L.sortBuckets)
                     : 0;
    [[unroll]] for (uint k = 0; k < 8; ++k) {
      uint i = i0 + k * BLOCK;
      if (i < count) {
        codes.v[i] = code_[k];
        lowest = min(lowest, code_[k]);
        highest = max(highest, code_[k]);
      }
    }
  }
  workgroupRange(lowest, highest);
  uint64_t low = lowest;
  uint bits = spanBits(highest - lowest);
  uint per = (count + BLOCK - 1) / BLOCK;
  uint begin = min(t * per, count);
  uint end = min(begin + per, count);
  if ((((bits + 3) / 4) & 1) != 0) { // odd: the last pass writes invocations
    from = U32s(L.scratch + 4 * uint64_t(first));
    to = U32s(L.invocations + 4 * uint64_t(first));
  }
  for (uint shift = 0; shift < bits; shift += 4) {
    for (uint d = 0; d < 16; ++d)
      pool_[d * BLOCK + t] = 0;
    for (uint i0 = begin; i0 < end; i0 += 8) { // eight codes' loads at once
      uint64_t code_[8];
      [[unroll]] for (uint k = 0; k < 8; ++k)
        code_[k] = i0 + k < end ? codes.v[i0 + k] : 0;
      [[unroll]] for (uint k = 0; k < 8; ++k)
        if (i0 + k < end)
          ++pool_[uint(((code_[k] - low) >> shift) & 15) * BLOCK + t];
    }
    barrier();
    // Positions: digit-major, then thread (chunks ascend): stable.
    uint sum = 0;
    for (uint j = 0; j < 16; ++j)
      sum += pool_[t * 16 + j];
    uint all;
    uint running = blockScan(sum, all);
    for (uint j = 0; j < 16; ++j) {
      uint c = pool_[t * 16 + j];
      pool_[t * 16 + j] = running;
      running += c;
    }
    barrier();
    for (uint i0 = begin; i0 < end; i0 += 8) {
      uint64_t code_[8];
      uint frame_[8];
      [[unroll]] for (uint k = 0; k < 8; ++k) {
        code_[k] = i0 + k < end ? codes.v[i0 + k] : 0;
        frame_[k] = i0 + k < end ? from.v[i0 + k] : 0;
      }
      [[unroll]] for (uint k = 0; k < 8; ++k) // in order: stable
        if (i0 + k < end) {
          uint digit = uint(((code_[k] - low) >> shift) & 15);
          uint position = pool_[digit * BLOCK + t]++;
          to.v[position] = frame_[k];
          codesTo.v[position] = code_[k];
        }
    }
    sync();
    U32s swap = from;
    from = to;
    to = swap;
    U64s swapCodes = codes;
    codes = codesTo;
    codesTo = swapCodes;
  }
  sync();
}

