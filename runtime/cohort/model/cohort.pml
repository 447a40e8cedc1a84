/* cohort.pml - Promela model of cohort staging, rendezvous and route ownership.
 *
 * Mirrors runtime/cohort/{dispatch,completion}.cpp and the transitions of
 * runtime/include/sluice/runtime/cohort/states.h; state names are the C++
 * enumerators (SlotEmpty = SlotState::Empty, LatchRinging =
 * LaunchLatch::Ringing, RouteOwner = RouteBits::RouteOwner, ...). Each atomic
 * block is one C++ atomic operation (a compare-and-swap loop of applySlotStep /
 * applyRouteStep counts as one); the two loads of Rendezvous::observe are
 * separate steps.
 *
 * Scene: 3 cores, 3 tasks (4 with -DQBLOCKS=n).
 *   P: regular, 4 blocks (more than cores), allows early resolve.
 *   C: cohort (sync_start), 3 blocks (every core), consumes P: early candidate.
 *   N: cohort, 2 blocks: normal path (tier 0, core reservation). Ready at
 *      start, or with QBLOCKS > 0 it consumes
 *   Q: regular, QBLOCKS blocks, which does not allow early resolve.
 * Cohort blocks run a cross-block barrier, which blocks forever unless all of
 * the cohort's blocks are co-resident.
 *
 * Checked: no invalid end state (deadlock), one ringer per cohort, every
 * staged block in a running slot at the ring, exactly one route per cohort,
 * every block runs exactly once.
 *
 * Mutants (-DMUTANT_...) break one rule each; spin must then report an error:
 * NO_PUBLICATION_GATE (arm C on P's first publication: deadlock), RING_EARLY
 * (ignore condition (a)), SPLIT_LATCH (check-then-set latch: two ringers),
 * READY_IGNORES_OWNER (two routes).
 *
 * Abstractions: an idle core blocks until an action is enabled (the executor's
 * epoch wait); a failed staging attempt is retried only after a slot frees or a
 * queue changes (the epoch bump). Ready queues are sets; aborts are not modelled.
 */

#define NCORES 3
#define NTASKS 4
#define P 0
#define C 1
#define Q 2
#define N 3
#define MAXB 4
#ifndef QBLOCKS
#define QBLOCKS 0
#endif

/* SlotState */
#define SlotEmpty 0
#define SlotFilling 1
#define SlotNormal 2
#define SlotGated 3
#define SlotOpen 4

/* LaunchLatch */
#define LatchNone 0
#define LatchRinging 1
#define LatchComplete 2

/* RouteBits */
#define RouteOwner 1
#define RouteArmed 2
#define RouteReady 4
#define RouteComplete 8

/* Physical slots: core c owns 2c and 2c+1; runIdx picks the running one. */
#define RUN(c) (2 * (c) + runIdx[c])
#define PEND(c) (2 * (c) + 1 - runIdx[c])
#define IDLE(c) (slot[2 * (c)] == SlotEmpty && slot[2 * (c) + 1] == SlotEmpty && !reserved[c])
#define FINISHES(s) (slot[s] == SlotNormal || slot[s] == SlotOpen)

byte blocks[NTASKS];
bit cohort[NTASKS];

/* CoreWord */
byte slot[2 * NCORES];
bit runIdx[NCORES];
bit reserved[NCORES];
/* SlotPayload */
byte payTask[2 * NCORES];
byte payBlock[2 * NCORES];
/* CoreRecord::doorbell: 0 closed, task + 1 once rung */
byte doorbell[2 * NCORES];

/* TaskRecord */
byte nextBlock[NTASKS];
byte published[NTASKS];
byte done[NTASKS];
byte producersRemaining[NTASKS];
byte runningStaged[NTASKS];
byte latch[NTASKS];
byte route[NTASKS];
byte unpublishedProducers[NTASKS];
byte stagedSlot[NTASKS * NCORES];

/* Queues: RunState::ready (a set here), tier0 and early. */
bit readyRegular[NTASKS];
chan tier0 = [2] of { byte };
chan early = [2] of { byte };
bit placementLock;
bit stagingStale; /* the last staging attempt failed; nothing changed since */
byte tier0Reserved;
byte tier0Cores[NCORES];
byte tasksRemaining = NTASKS;

/* Observers. */
bit exec[NTASKS * MAXB];
byte arrived[NTASKS];
byte rings[NTASKS];
byte routeEarly[NTASKS];
byte routeNormal[NTASKS];

/* Rendezvous::observe + tryBeginRing + Executor::Impl::ring (completion.cpp) */
inline try_ring(k) {
  rs = runningStaged[k];
  pr = producersRemaining[k];
  if
#ifdef MUTANT_RING_EARLY
  :: pr == 0 ->
#else
  :: rs == blocks[k] && pr == 0 ->
#endif
#ifdef MUTANT_SPLIT_LATCH
     if
     :: latch[k] == LatchNone -> won = 1
     :: else -> won = 0
     fi;
     if
     :: won -> latch[k] = LatchRinging
     :: else -> skip
     fi;
#else
     atomic { /* beginRing */
       if
       :: latch[k] == LatchNone -> latch[k] = LatchRinging; won = 1
       :: else -> won = 0
       fi
     }
#endif
     if
     :: won ->
        atomic {
          assert(rings[k] == 0);
          rings[k]++;
          /* (a): every staged block sits in a running slot, gated. */
          for (i : 0 .. blocks[k] - 1) {
            assert(stagedSlot[k * NCORES + i] == RUN(stagedSlot[k * NCORES + i] / 2));
            assert(slot[stagedSlot[k * NCORES + i]] == SlotGated)
          }
          i = 0
        }
        for (i : 0 .. blocks[k] - 1) {
          doorbell[stagedSlot[k * NCORES + i]] = k + 1
        }
        i = 0;
        latch[k] = LatchComplete; /* completeRing */
        won = 0
     :: else -> skip
     fi
  :: else -> skip
  fi;
  rs = 0; pr = 0
}

/* Executor::Impl::onReady (completion.cpp) */
inline on_ready(k) {
  if
  :: !cohort[k] -> readyRegular[k] = 1; stagingStale = 0
  :: cohort[k] && k == N -> routeNormal[k]++; tier0 ! k; stagingStale = 0
  :: cohort[k] && k == C ->
     atomic { /* readyEvent */
       if
       :: route[k] & RouteReady -> act = 0
#ifdef MUTANT_READY_IGNORES_OWNER
       :: !(route[k] & RouteReady) && (route[k] & RouteOwner) -> route[k] = route[k] | RouteReady; act = 1
#else
       :: !(route[k] & RouteReady) && (route[k] & RouteOwner) -> route[k] = route[k] | RouteReady; act = 0
#endif
       :: !(route[k] & RouteReady) && !(route[k] & RouteOwner) ->
          route[k] = route[k] | RouteReady | RouteComplete; act = 1
       fi
     }
     if
     :: act -> routeNormal[k]++; assert(routeEarly[k] + routeNormal[k] <= 1); tier0 ! k; stagingStale = 0
     :: else -> skip
     fi;
     act = 0
  fi
}

/* Executor::Impl::finishBlocks / completeTask / producerDone */
inline finish_block(t) {
  atomic { done[t]++; got = (done[t] == blocks[t]) } /* fetch_add */
  if
  :: got ->
     got = 0;
     if
     :: t == P -> k = C
     :: t == Q -> k = N
     :: else -> k = 255
     fi;
     if
     :: k != 255 ->
        atomic { /* producerDone */ producersRemaining[k]--; got = (producersRemaining[k] == 0) }
        if
        :: got -> got = 0; on_ready(k)
        :: else -> skip
        fi;
        if
        :: k == C -> try_ring(k)
        :: else -> skip
        fi
     :: else -> skip
     fi;
     k = 0;
     tasksRemaining--
  :: else -> skip
  fi
}

/* Executor::Impl::notePublished + propagateCandidate (armCandidate) */
inline note_published(t) {
#ifdef MUTANT_NO_PUBLICATION_GATE
  atomic { published[t]++; got = (t == P && published[t] == 1) }
#else
  atomic { published[t]++; got = (t == P && published[t] == blocks[t]) }
#endif
  if
  :: got ->
     atomic { unpublishedProducers[C]--; got = (unpublishedProducers[C] == 0) }
     if
     :: got ->
        got = 0;
        atomic { /* armCandidate */
          if
          :: route[C] == 0 -> route[C] = RouteArmed; act = 1
          :: else -> act = 0
          fi
        }
        if
        :: act -> early ! C; stagingStale = 0
        :: else -> skip
        fi;
        act = 0
     :: else -> skip
     fi
  :: else -> skip
  fi
}

/* finishRunningSlot + the promotion count (dispatch.cpp executeRunning) */
inline finish_running() {
  atomic { /* finishRunningSlot */
    slot[RUN(c)] = SlotEmpty;
    if
    :: slot[PEND(c)] == SlotGated -> runIdx[c] = 1 - runIdx[c]; promoted = 1
    :: else -> promoted = 0
    fi;
    stagingStale = 0
  }
  if
  :: promoted ->
     atomic { promoted = 0; k = payTask[RUN(c)]; runningStaged[k]++ }
     try_ring(k);
     k = 0
  :: else -> skip
  fi
}

/* cancelStaging + requeue / hand over (dispatch.cpp tryStageEarly letGo) */
inline let_go(k) {
  atomic { /* cancelStaging */
    if
    :: route[k] & RouteReady -> route[k] = RouteArmed | RouteReady | RouteComplete; act = 2
    :: else -> route[k] = RouteArmed; act = 1
    fi
  }
  if
  :: act == 1 -> early ! k; stagingStale = 1
  :: act == 2 -> routeNormal[k]++; assert(routeEarly[k] + routeNormal[k] <= 1); tier0 ! k; stagingStale = 0
  fi;
  act = 0
}

proctype Core(byte c) {
  byte t, b, s, k, i, j, cnt, rs, pr, act;
  bit won, promoted, got;

  do
  :: tasksRemaining == 0 -> break

  /* A regular block in the running slot. */
  :: atomic {
       slot[RUN(c)] == SlotNormal ->
       s = RUN(c); t = payTask[s]; b = payBlock[s]; /* stable while Normal */
       assert(exec[t * MAXB + b] == 0); exec[t * MAXB + b] = 1; s = 0
     }
progressRegular:
     finish_running();
     finish_block(t);
     atomic { t = 0; b = 0 }

  /* A cohort block behind its doorbell (waitAtGate, openRunningGate). */
  :: atomic {
       slot[RUN(c)] == SlotGated ->
       s = RUN(c); t = payTask[s]; b = payBlock[s] /* stable while Gated */
     }
     doorbell[s] == t + 1;
     atomic { /* openRunningGate */
       slot[s] = SlotOpen; s = 0;
       assert(exec[t * MAXB + b] == 0); exec[t * MAXB + b] = 1
     }
     /* Cross-block barrier: waits forever unless co-resident. */
     arrived[t]++;
     arrived[t] == blocks[t];
progressCohort:
     finish_running();
     finish_block(t);
     atomic { t = 0; b = 0 }

  /* tryTier0: an idle core reserves itself and the other idle cores that are
   * awake (here: all or none of them; a partial set is the same global state
   * as "none" followed by those cores reserving themselves) for the head
   * cohort; the core whose reservation completes the cohort launches it. */
  :: atomic {
       IDLE(c) && nempty(tier0) && placementLock == 0 -> placementLock = 1
     }
     tier0 ? <k>;
     atomic { /* reserveCoreForCohort on the own core */
       assert(IDLE(c));
       reserved[c] = 1; tier0Cores[tier0Reserved] = c; tier0Reserved++
     }
     if
     :: true -> skip /* the others sleep */
     :: true ->
        for (i : 0 .. NCORES - 1) {
          atomic { /* reserveCoreForCohort on another awake core */
            if
            :: tier0Reserved < blocks[k] && i != c && IDLE(i) ->
               reserved[i] = 1; tier0Cores[tier0Reserved] = i; tier0Reserved++
            :: else -> skip
            fi
          }
        }
        i = 0
     fi;
     if
     :: tier0Reserved == blocks[k] ->
        atomic { /* payloads of reserved cores: read by nobody before launch */
          tier0 ? k;
          nextBlock[k] = blocks[k];
          for (j : 0 .. blocks[k] - 1) {
            s = RUN(tier0Cores[j]);
            payTask[s] = k; payBlock[s] = j;
            stagedSlot[k * NCORES + j] = s
          }
          j = 0; s = 0
        }
        for (j : 0 .. blocks[k] - 1) {
          atomic { /* launchIntoReservedCore */
            assert(reserved[tier0Cores[j]] && slot[RUN(tier0Cores[j])] == SlotEmpty);
            reserved[tier0Cores[j]] = 0;
            slot[RUN(tier0Cores[j])] = SlotGated
          }
        }
        atomic {
          j = 0;
          tier0Reserved = 0;
          tier0Cores[0] = 0; tier0Cores[1] = 0; tier0Cores[2] = 0;
          runningStaged[k] = runningStaged[k] + blocks[k]
        }
        try_ring(k)
     :: else -> skip
     fi;
     atomic { k = 0; placementLock = 0 }

  /* tryStageEarly: all-or-nothing staging of an early candidate, by an idle
   * core or by one about to run a regular block (dispatch.cpp step). */
  :: atomic {
       (IDLE(c) || slot[RUN(c)] == SlotNormal) && nempty(early) &&
       !stagingStale && placementLock == 0 ->
       placementLock = 1
     }
     early ? k;
     atomic { /* takeCandidate */
       if
       :: route[k] == RouteArmed -> route[k] = RouteArmed | RouteOwner; got = 1
       :: else -> got = 0
       fi
     }
     if
     :: !got -> skip /* stale entry: the normal path owns it */
     :: got ->
        cnt = 0;
        atomic { /* count first */
          for (i : 0 .. NCORES - 1) {
            if
            :: IDLE(i) -> cnt++
            :: !IDLE(i) && !reserved[i] && slot[PEND(i)] == SlotEmpty && FINISHES(RUN(i)) -> cnt++
            :: else -> skip
            fi
          }
          i = 0
        }
        if
        :: cnt < blocks[k] -> let_go(k)
        :: else ->
           /* Free running slots first, then pending slots; one per core. */
           cnt = 0;
           for (i : 0 .. NCORES - 1) {
             atomic { /* reserveRunningSlot */
               if
               :: cnt < blocks[k] && IDLE(i) ->
                  slot[RUN(i)] = SlotFilling; stagedSlot[k * NCORES + cnt] = RUN(i); cnt++
               :: else -> skip
               fi
             }
           }
           for (i : 0 .. NCORES - 1) {
             atomic { /* reservePendingSlot */
               if
               :: cnt < blocks[k] && !reserved[i] && slot[PEND(i)] == SlotEmpty && FINISHES(RUN(i)) ->
                  j = 0;
                  do
                  :: j < cnt && stagedSlot[k * NCORES + j] / 2 == i -> break
                  :: j < cnt && stagedSlot[k * NCORES + j] / 2 != i -> j++
                  :: j >= cnt ->
                     slot[PEND(i)] = SlotFilling; stagedSlot[k * NCORES + cnt] = PEND(i); cnt++;
                     break
                  od;
                  j = 0
               :: else -> skip
               fi
             }
           }
           i = 0;
           if
           :: cnt < blocks[k] ->
              for (j : 0 .. cnt - 1) {
                atomic { /* rollbackSlot */ slot[stagedSlot[k * NCORES + j]] = SlotEmpty; stagedSlot[k * NCORES + j] = 0 }
              }
              j = 0;
              let_go(k)
           :: else ->
              atomic { /* payloads of Filling slots: read by nobody yet */
                nextBlock[k] = blocks[k];
                for (j : 0 .. blocks[k] - 1) {
                  payTask[stagedSlot[k * NCORES + j]] = k; payBlock[stagedSlot[k * NCORES + j]] = j
                }
                j = 0; cnt = 0
              }
              for (j : 0 .. blocks[k] - 1) {
                atomic { /* publishSlot(Gated), promoting behind an emptied running slot */
                  s = stagedSlot[k * NCORES + j];
                  assert(slot[s] == SlotFilling);
                  slot[s] = SlotGated;
                  if
                  :: s != RUN(s / 2) && slot[RUN(s / 2)] == SlotEmpty -> runIdx[s / 2] = 1 - runIdx[s / 2]
                  :: else -> skip
                  fi;
                  if
                  :: s == RUN(s / 2) -> cnt++
                  :: else -> skip
                  fi;
                  s = 0
                }
              }
              j = 0;
              atomic { /* finishStaging */ route[k] = route[k] | RouteComplete; routeEarly[k]++; assert(routeEarly[k] + routeNormal[k] <= 1) }
              atomic { runningStaged[k] = runningStaged[k] + cnt; cnt = 0 }
              try_ring(k)
           fi
        fi
     fi;
     atomic { got = 0; k = 0; cnt = 0; placementLock = 0 }

  /* tryClaimRegular: reserve the own running slot, then claim one block. */
  :: atomic { /* reserveRunningSlot */
       IDLE(c) && ((readyRegular[P] && nextBlock[P] < blocks[P]) ||
                   (readyRegular[Q] && nextBlock[Q] < blocks[Q])) ->
       slot[RUN(c)] = SlotFilling
     }
     if
     :: readyRegular[P] && nextBlock[P] < blocks[P] -> t = P
     :: readyRegular[Q] && nextBlock[Q] < blocks[Q] -> t = Q
     :: else -> t = P /* both taken meanwhile: the claim fails */
     fi;
     atomic { /* claimBlockRange */
       if
       :: nextBlock[t] < blocks[t] -> b = nextBlock[t]; nextBlock[t]++; got = 1
       :: else -> got = 0
       fi
     }
     if
     :: got ->
        atomic { /* publishSlot(Normal) */ payTask[RUN(c)] = t; payBlock[RUN(c)] = b; slot[RUN(c)] = SlotNormal }
        note_published(t)
     :: else ->
        atomic { /* rollbackSlot */ slot[RUN(c)] = SlotEmpty; stagingStale = 0 }
     fi;
     atomic { t = 0; b = 0; got = 0 }
  od
}

init {
  byte t, b;
  blocks[P] = 4; blocks[C] = 3; blocks[Q] = QBLOCKS; blocks[N] = 2;
  cohort[C] = 1; cohort[N] = 1;
  producersRemaining[C] = 1;
  unpublishedProducers[C] = 1;
  readyRegular[P] = 1;
  if
  :: QBLOCKS > 0 -> producersRemaining[N] = 1; readyRegular[Q] = 1
  :: else -> tasksRemaining = NTASKS - 1; routeNormal[N]++; tier0 ! N
  fi;
  atomic {
    run Core(0); run Core(1); run Core(2)
  }
  _nr_pr == 1;
  /* Everything completed exactly once. */
  for (t : 0 .. NTASKS - 1) {
    assert(done[t] == blocks[t]);
    b = 0;
    do
    :: b < blocks[t] -> assert(exec[t * MAXB + b] == 1); b++
    :: else -> break
    od
  }
  assert(rings[C] == 1 && rings[N] == 1 && rings[P] == 0 && rings[Q] == 0);
  assert(routeEarly[C] + routeNormal[C] == 1);
  assert(routeEarly[N] == 0 && routeNormal[N] == 1)
}
