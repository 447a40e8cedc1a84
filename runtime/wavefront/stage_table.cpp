//===- stage_table.cpp - The per-stage statistics table -------------------===//

#include "sluice/runtime/wavefront/wavefront.h"

#include <cinttypes>

namespace sluice::runtime {

void printStageTable(std::FILE *out, const std::vector<std::string> &names,
                     const std::vector<StageStatistics> &stages) {
  std::fprintf(out, "%-20s %10s %12s %10s %10s %8s %8s %8s\n", "stage",
               "dispatches", "invocations", "published", "released",
               "partial", "blocked", "drains");
  for (size_t s = 0; s < stages.size() && s < names.size(); ++s) {
    const StageStatistics &st = stages[s];
    std::fprintf(out,
                 "%-20s %10" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64
                 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n",
                 names[s].c_str(), st.dispatches, st.invocations,
                 st.itemsPublished, st.itemsReleased, st.partialAdmissions,
                 st.admissionBlocks, st.drainDispatches);
  }
}

void printRunSummary(std::FILE *out, const ProgramDescriptor &program,
                     const RunResult &result, const RunSummary &summary) {
  std::vector<std::string> names = globalStageNames(program);
  std::fprintf(out, "%s: %u lanes, %s schedule, %s frames, frame pool %u\n",
               program.name.c_str(), summary.lanes, summary.schedule,
               summary.layout, summary.framePool);
  if (summary.stats) {
    printStageTable(out, names, result.stages);
    std::fprintf(out, "iterations: %" PRIu64 "\n", result.iterations);
  }
  std::fprintf(out, "lanes finished: %" PRIu64 "\n", result.lanesFinished);
  size_t base = program.mainStages.size(); // first stage of owner o
  for (size_t o = 0; o < program.owners.size(); ++o) {
    uint64_t published = 0, released = 0;
    for (const ProducerDesc &producer : program.producers)
      if (producer.owner == o && producer.stage < result.stages.size())
        published += result.stages[producer.stage].itemsPublished;
    for (size_t s = 0; s < program.owners[o].stages.size(); ++s)
      if (base + s < result.stages.size())
        released += result.stages[base + s].itemsReleased;
    base += program.owners[o].stages.size();
    std::fprintf(out,
                 "owner %s: capacity %u, items published %" PRIu64
                 ", released %" PRIu64 "\n",
                 program.owners[o].name.c_str(), program.owners[o].capacity,
                 published, released);
  }
  std::fflush(out);
}

} // namespace sluice::runtime
