// A batch of input vectors that differ only in some inputs: evidence cases, which set the
// indicators and share the parameters (and any free inputs). The shared vector is held once and
// each vector's varying inputs apart, so a backend that moves inputs to a device moves the shared
// ones once per model rather than once per case, and brings back only the varying inputs'
// adjoints (all that MAR and MPE read).
#pragma once

#include "ir/result.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace zbddc {

struct InputBatch {
    std::vector<double> shared;    // numInputs values: every vector's, but at the varying inputs
    std::vector<uint32_t> varying; // the inputs that differ between vectors, ascending
    std::vector<double> values;    // count × varying.size(): vector k's varying inputs, in order
    size_t count = 0;

    size_t numInputs() const { return shared.size(); }
    // Appends one vector: its varying inputs' values, in the order of `varying`.
    void add(std::span<const double> varyingValues);
    // Vector k in full, into `x` (numInputs values).
    void vectorInto(size_t k, std::span<double> x) const;
    // Every vector in full (count × numInputs), for a backend that takes vectors whole.
    std::vector<double> dense() const;
    // The vectors `which` (indices into this batch, in that order) as a batch of their own.
    InputBatch subset(std::span<const size_t> which) const;
    // From full per-vector rows (count × numInputs: adjoints, say) the varying inputs' columns,
    // count × varying.size().
    std::vector<double> varyingColumns(std::span<const double> rows) const;
    // Ok when the parts agree (sizes, `varying` ascending and within the inputs).
    Status check(size_t numInputs) const;
};

// An InputBatch whose varying values already live in a GPU's memory (a PyTorch CUDA tensor's,
// say), and the GPU memory a pass writes its results to: the shared vector and the varying
// inputs stay on the host, as in InputBatch. Addresses are the GPU's (CUdeviceptr); float64
// throughout, vector-major like InputBatch::values; 0 where nothing is read or written.
struct DeviceInputBatch {
    std::vector<double> shared;    // numInputs values: every vector's, but at the varying inputs
    std::vector<uint32_t> varying; // the inputs that differ between vectors, ascending
    uint64_t values = 0;           // count × varying.size(): vector k's varying inputs (linear)
    size_t count = 0;
    uint64_t outputs = 0;  // count × numOutputs (natural logs in log space), or 0: not written
    uint64_t adjoints = 0; // count × varying.size() of a backward pass, as adjoints() gives them
    // Ok when the host parts agree (as InputBatch::check) and the addresses needed are there.
    Status check(size_t numInputs, bool backward) const;
};

} // namespace zbddc
