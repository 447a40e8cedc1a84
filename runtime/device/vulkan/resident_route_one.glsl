// One invocation's routing (docs/runtime.md "The device placement on
// Vulkan"), for the routing dispatch and for the scheduler dispatch that
// routes a small previous dispatch itself: invocation i of the dispatch of
// global stage `stage` moves its frame or item slot to the stage its outcome
// names, adds the items it published to their owner's first stage and
// tallies counts per workgroup (the HIP kernel's runAndRoute() is the same
// algorithm). The including shader declares the tallies (stageAdds_,
// liveAdds_, publishedAdds_, releasedAdds_, finished_, and orderAdds_, the
// main stage's order digest: resident_layout.h's orderTerm) and defines:
//   routeBad(L, i)                  an outcome that names no stage
//   routeSetBits(L, word, bits)     members into the sets' word `word`
//   routeReserve(L, owner, n)       n slots of the owner's free ring, counted
//                                   in releasedAdds_: the first's position
//
// Every shared tally and every set word is written once per subgroup and
// address, not once per invocation: the invocations of a dispatch run its
// frames in ascending order, so a subgroup's frames share a few set words
// and one or two target stages, and each atomic on one address is a turn of
// its own (the scheduler's routing of 1,024 invocations spent most of its
// 4,250 subgroup-clock cycles on them). Each loop below takes, turn by
// turn, the invocations active together whose key equals the first active
// one's: whatever the subgroup's reconvergence, every invocation is added
// exactly once.
#extension GL_KHR_shader_subgroup_ballot : require

// Member `index` into the set at word `first`; its stage's tally (`target`,
// a global stage or FINISHED) counts it.
void routeMember(Layout L, uint first, uint index, uint target) {
  uint word = first + index / 32;
  for (;;) {
    uint w = subgroupBroadcastFirst(word);
    if (word == w) { // one set word, so one set and one target
      uint bits = subgroupOr(1u << (index % 32));
      if (subgroupElect()) {
        routeSetBits(L, w, bits);
        if (target == FINISHED)
          atomicAdd(finished_, bitCount(bits));
        else
          atomicAdd(stageAdds_[target], bitCount(bits));
      }
      return;
    }
  }
}

// The items invocation i of a main stage published on edge e, into their
// owner's first stage: `published` of them (the caller may have loaded the
// count and the first slot with its other loads: `loaded`).
void routePublished(Layout L, uint i, uint e, bool loaded, uint published,
                    uint firstSlot) {
  uint owner = edgeOwner_[e];
  R32s slots = R32s(L.publishedSlots);
  uint slotBase = i * L.publishStride + publishBase_[owner];
  if (!loaded) {
    published = R32s(L.publishedCounts).v[i * L.ownerCount + owner];
    firstSlot = published != 0 ? slots.v[slotBase] : 0;
  }
  published = min(published, edgeBound_[e]); // the kernel recorded a fault
  uint base = stageBase_[owner];
  uint all = subgroupAdd(published);
  if (all != 0 && subgroupElect()) {
    atomicAdd(liveAdds_[owner], int(all));
    atomicAdd(publishedAdds_[owner], all);
  }
  for (uint k = 0; k < published; ++k)
    routeMember(L, setOffset_[base], k == 0 ? firstSlot : slots.v[slotBase + k],
                base);
}

// Invocation i: `next` and `index` are its outcome and frame or slot, and
// `published` and `firstSlot` its publish count and first slot on the
// stage's first edge (route() loads them; a caller that routes several
// invocations per thread loads them all first).
void routeLoaded(Layout L, uint stage, uint i, uint next, uint index,
                 uint published, uint firstSlot) {
  if (stage < L.mainStageCount) {
    uint order = subgroupAdd((i + 1u) * index);
    if (subgroupElect())
      atomicAdd(orderAdds_, order);
    if (!(next == FINISHED || next < L.mainStageCount)) {
      routeBad(L, i);
      return;
    }
    routeMember(L, setOffset_[next == FINISHED ? L.stageCount : next], index,
                next);
    for (uint e = producerBegin_[stage]; e < producerBegin_[stage + 1]; ++e)
      routePublished(L, i, e, e == producerBegin_[stage], published,
                     firstSlot);
    return;
  }
  // An item of an owner's stage.
  uint owner = 0;
  while (owner + 1 < L.ownerCount && stageBase_[owner + 1] <= stage)
    ++owner;
  if (!(next == FINISHED || next < ownerStages_[owner])) {
    routeBad(L, i);
    return;
  }
  if (next == FINISHED) {
    uint n = subgroupAdd(1u), rank = subgroupExclusiveAdd(1u);
    uint64_t first = 0;
    if (subgroupElect()) {
      first = routeReserve(L, owner, n);
      atomicAdd(liveAdds_[owner], -int(n));
    }
    first = packUint2x32(subgroupBroadcastFirst(unpackUint2x32(first))) + rank;
    U32s(L.freeRing).v[ringOffset_[owner] + uint(first % capacity_[owner])] =
        index;
  } else {
    uint target = stageBase_[owner] + next;
    routeMember(L, setOffset_[target], index, target);
  }
}

// The loads routeLoaded() wants of invocation i.
void routeLoads(Layout L, uint stage, uint i, out uint next, out uint index,
                out uint published, out uint firstSlot) {
  next = R32s(L.nextStage).v[i];
  index = R32s(L.invocations).v[i];
  published = 0;
  firstSlot = 0;
  if (stage < L.mainStageCount &&
      producerBegin_[stage] != producerBegin_[stage + 1]) {
    uint owner = edgeOwner_[producerBegin_[stage]];
    published = R32s(L.publishedCounts).v[i * L.ownerCount + owner];
    // Slot 0 whether or not it was written (the count says): loaded with
    // the rest, not after the count.
    firstSlot = R32s(L.publishedSlots)
                    .v[i * L.publishStride + publishBase_[owner]];
  }
}

void route(Layout L, uint stage, uint i) {
  uint next, index, published, firstSlot;
  routeLoads(L, stage, i, next, index, published, firstSlot);
  routeLoaded(L, stage, i, next, index, published, firstSlot);
}
