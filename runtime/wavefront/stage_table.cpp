//===- stage_table.cpp - The per-stage statistics table -------------------===//

#include "sluice/runtime/wavefront.h"

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

} // namespace sluice::runtime
