// A network .so loaded (shared_library.h) and answering PR, MAR and MPE
// over batches of evidence through the C ABI of include/zbdd_network.h, whichever route wrote it:
// a network.so (route jt, runtime/junction_tree/junction_tree_library.h) or a model.so of a
// network's MLF that also exports the network functions (route mlf).
#pragma once

#include "runtime/evidence.h"
#include "runtime/shared_objects/network_metadata.h"
#include "runtime/shared_objects/shared_library.h"
#include "runtime/tasks.h"

#include <span>
#include <string>
#include <vector>

namespace zbddc {

class NetworkLibrary {
  public:
    // A network.so, or a model.so exporting the network functions.
    static Result<NetworkLibrary> open(const std::string &path);

    const NetworkMetadata &metadata() const { return metadata_; }
    // Whether the .so answers `task` (its metadata's `tasks`: pr,mar,mpe for route jt; pr,mar for
    // a sum-product MLF; none for other circuits, which answer ZBDD_NETWORK_ENOTASK).
    bool answers(Task task) const;
    // zbdd_network_set_threads: 0 = every online core (the default).
    void setThreads(unsigned threads) const;
    // One result per case, as JunctionTreeModel::run returns them (a case with P(e) = 0 fails
    // alone for MAR and MPE); cases are Evidence over metadata().variables.
    std::vector<Result<TaskResult>> run(Task task, std::span<const Evidence> cases) const;

  private:
    SharedLibrary lib_;
    int (*pr_)(const int *, size_t, double *, int *) = nullptr;
    int (*mar_)(const int *, size_t, double *, double *, int *) = nullptr;
    int (*mpe_)(const int *, size_t, int *, double *, int *) = nullptr;
    size_t (*numMarginals_)(void) = nullptr;
    void (*threads_)(unsigned) = nullptr;
    NetworkMetadata metadata_;
};

} // namespace zbddc
