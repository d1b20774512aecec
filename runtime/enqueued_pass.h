// One pass over a batch enqueued on a caller's CUDA stream (Model::enqueue): the GPU engine has
// put the copies and kernels on the stream and returned; ready() polls and wait() blocks until
// the stream has reached the pass's end, not beyond, and gives back what it computed.
#pragma once

#include "ir/result.h"
#include "ir/traced_terms.h"

#include <optional>

#include <vector>

namespace zbddc {

// What an enqueued pass computed, as Model::evaluate and Model::adjoints return it (natural logs
// in Log mode).
struct PassValues {
    std::vector<double> outputs;  // batch × numOutputs
    std::vector<double> adjoints; // batch × numInputs of the output asked for; empty if none was
    std::optional<TracedTerms> traced = {}; // where a traceback was asked for: one per vector
};

class EnqueuedPass {
  public:
    virtual ~EnqueuedPass() = default;     // waits for the pass if it is still running
    virtual Result<bool> ready() = 0;      // never blocks
    virtual Result<PassValues> wait() = 0; // once
};

} // namespace zbddc
