// One subgroup, a run of words of a bit set: what the scheduler's
// selection and the grid's (resident_select.comp) share, as the HIP kernel's
// takeFromChunk (runtime/device/hip/resident_kernel.hip). Needs the
// subgroup basic, arithmetic and shuffle operations.
//
// Lane l < size (size = min(subgroup size, 32): a word has 32 bits) holds
// word `firstWord + l` of the set in `bits` (a run of `size` consecutive
// words; a 32-word chunk is 32 / size runs); `base` is the rank of the
// run's lowest member. Visits the members of rank < count, a word at a time
// with its bits spread over the lanes, so that consecutive members come
// from consecutive lanes (coalesced stores, no invocation writing a long
// run of its own): a selection writes member k to out_[k], a refill writes
// lane firstLane + k to out_[member k] (the lane ids). `bits` loses the
// members taken. Returns the run's members.

uint chunkLanes() { return min(gl_SubgroupSize, 32u); }

uint takeFromWords(inout uint bits, uint firstWord, uint base, uint count,
                   U32s out_, bool refill, uint64_t firstLane) {
  uint size = chunkLanes();
  uint lane = gl_SubgroupInvocationID;
  bool taking = lane < size;
  uint n = taking ? bitCount(bits) : 0;
  uint first = base + subgroupExclusiveAdd(n); // of the word's lowest member
  uint members = subgroupAdd(n);
  for (uint j = 0; j < size; ++j) {
    uint b = subgroupShuffle(bits, j);
    uint r = subgroupShuffle(first, j);
    for (uint bit = lane; taking && bit < 32; bit += size) {
      uint rank = r + bitCount(b & ((1u << bit) - 1u));
      if (((b >> bit) & 1u) != 0 && rank < count) {
        uint member = (firstWord + j) * 32 + bit;
        if (refill)
          out_.v[member] = uint(firstLane + rank);
        else
          out_.v[rank] = member;
      }
    }
  }
  if (taking && first < count)
    for (uint take = count - first; bits != 0 && take != 0; --take)
      bits &= bits - 1; // the lowest members go
  return members;
}
