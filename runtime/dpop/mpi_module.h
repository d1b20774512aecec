// DPOP's MPI half (MPI start and end, the run's communicator, the collectives, the transport) is
// a shared module of its own, libzbddc_mpi.so, the only code linked to libmpi, loaded when a run
// is distributed: every other process of zbddc starts without mapping Open MPI's libraries (a
// millisecond of each fresh process's start, as much as the rest of it on a small network).
//
// As the CPU backend's LLVM module (backends/cpu/llvm_module.h): one C export returning a table
// of functions over C++ types, refused unless it comes from the same build, looked for by
// moduleCandidates (ir/loaded_library.h). A process runs one distributed run at a time: the
// module keeps its communicator between start and finish.
#pragma once

#include "runtime/dpop/dpop_transport.h"

#include <cstddef>
#include <memory>
#include <span>

namespace zbddc {

inline constexpr int kMpiModuleAbi = 1;

struct MpiFunctions {
    int abi = kMpiModuleAbi;
    size_t size = sizeof(MpiFunctions);
    bool (*running)() = nullptr; // MPI initialised and not finalised
    // MPI initialised (threads funnelled) unless it is, and the run's own communicator made.
    Status (*start)() = nullptr;
    void (*finish)() = nullptr;            // the communicator freed, MPI finalised
    void (*abort)(int exitCode) = nullptr; // every rank of the world ended
    int (*rank)() = nullptr;
    int (*ranks)() = nullptr;     // how many
    int (*localRank)() = nullptr; // this rank's place among the ranks on its host
    // Waits for every rank, for at most `timeoutS` seconds (`what` names the point in errors).
    Status (*barrier)(double timeoutS, const char *what) = nullptr;
    void (*broadcast)(std::span<uint32_t> values) = nullptr; // rank 0's values to every rank
    // Every rank's `mine` (the same length on each) into rank 0's `all`, rank by rank; a rank that
    // never joins fails it within `timeoutS`.
    Status (*gather)(std::span<const std::byte> mine, std::span<std::byte> all, double timeoutS,
                     const char *what) = nullptr;
    std::unique_ptr<DpopTransport> (*transport)() = nullptr; // over the run's communicator
    int (*ranksOnHost)() = nullptr; // how many ranks share this rank's host
};

// The module's table, loaded on the first call; otherwise why not.
Result<const MpiFunctions *> mpiFunctions();
// The table where a call has loaded it, else null: what an abort may use without loading MPI.
const MpiFunctions *mpiFunctionsIfLoaded();

} // namespace zbddc

// The module's one export.
extern "C" const zbddc::MpiFunctions *zbddc_mpi_module_v1();
