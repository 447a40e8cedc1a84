// One invocation's routing (docs/runtime.md "The device placement on
// Vulkan"), for the routing dispatch and for the scheduler dispatch that
// routes a small previous dispatch itself: invocation i of the dispatch of
// global stage `stage` moves its frame or item slot to the stage its outcome
// names, adds the items it published to their owner's first stage and
// tallies counts per workgroup (the HIP kernel's runAndRoute() is the same
// algorithm). The including shader declares the tallies (stageAdds_,
// liveAdds_, publishedAdds_, releasedAdds_, finished_, and orderAdds_, the
// main stage's order digest: resident_layout.h's orderTerm) and defines:
//   routeBad(L, i)                 an outcome that names no stage
//   routeSetBit(L, first, index)   a member into the set at word `first`
//   routeRelease(L, owner, index)  a released slot into the owner's free
//                                  ring, counted in releasedAdds_

// The items invocation i of a main stage published on edge e, into their
// owner's first stage.
void routePublished(Layout L, uint i, uint e) {
  uint owner = edgeOwner_[e];
  uint published = R32s(L.publishedCounts).v[i * L.ownerCount + owner];
  published = min(published, edgeBound_[e]); // the kernel recorded a fault
  uint base = stageBase_[owner];
  R32s slots = R32s(L.publishedSlots);
  for (uint k = 0; k < published; ++k)
    routeSetBit(L, setOffset_[base],
                slots.v[i * L.publishStride + publishBase_[owner] + k]);
  if (published != 0) {
    atomicAdd(stageAdds_[base], published);
    atomicAdd(liveAdds_[owner], int(published));
    atomicAdd(publishedAdds_[owner], published);
  }
}

// Invocation i: `next` and `index` are its outcome and frame or slot
// (route() loads them; a caller that routes several invocations per thread
// loads them all first).
void routeLoaded(Layout L, uint stage, uint i, uint next, uint index) {
  if (stage < L.mainStageCount) {
    atomicAdd(orderAdds_, (i + 1u) * index);
    if (!(next == FINISHED || next < L.mainStageCount)) {
      routeBad(L, i);
      return;
    }
    if (next == FINISHED) {
      routeSetBit(L, setOffset_[L.stageCount], index);
      atomicAdd(finished_, 1u);
    } else {
      routeSetBit(L, setOffset_[next], index);
      atomicAdd(stageAdds_[next], 1u);
    }
    for (uint e = producerBegin_[stage]; e < producerBegin_[stage + 1]; ++e)
      routePublished(L, i, e);
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
    routeRelease(L, owner, index);
    atomicAdd(liveAdds_[owner], -1);
  } else {
    routeSetBit(L, setOffset_[stageBase_[owner] + next], index);
    atomicAdd(stageAdds_[stageBase_[owner] + next], 1u);
  }
}

void route(Layout L, uint stage, uint i) {
  routeLoaded(L, stage, i, R32s(L.nextStage).v[i], R32s(L.invocations).v[i]);
}
