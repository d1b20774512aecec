// Evidence cases as Fast-BNI's benchmark draws them (Jiang et al. 2023): a joint state forward-
// sampled from the network (each variable from its CPT row once its parents are drawn), then each
// variable observed at its sampled state with a given probability, so every case has P(e) > 0.
// Deterministic for a seed.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "runtime/evidence.h"

#include "ir/file_io.h"

#include <cstdint>
#include <iosfwd>
#include <random>
#include <string>
#include <vector>

namespace zbddc {

// The cases one after another (the same sequence as sampleEvidence's for a seed).
class EvidenceSampler {
  public:
    EvidenceSampler(const BayesNet &net, double observedFraction, uint64_t seed);
    Evidence next();

  private:
    const BayesNet &net_;
    double observedFraction_;
    std::mt19937_64 rng_;
    std::vector<uint32_t> order_;
    std::vector<uint32_t> x_;
};

std::vector<Evidence> sampleEvidence(const BayesNet &net, size_t cases, double observedFraction,
                                     uint64_t seed);
// A case of the joint state `x`: each variable observed at its state with probability
// `observedFraction` (Fast-BNI's 20%), drawn from `rng` in variable order.
Evidence observeSome(const std::vector<uint32_t> &x, double observedFraction, std::mt19937_64 &rng);

// The UAI batch layout: the number of cases, then per case "n v1 s1 ... vn sn" on one line.
std::string uaiEvidenceText(const std::vector<Evidence> &cases);
// One case's line of that layout.
void writeEvidenceLine(const Evidence &e, std::ostream &out);
// The same text for `cases` sampled cases, written as they are drawn (memory does not grow with
// `cases`); false where the stream failed.
bool writeSampledEvidence(const BayesNet &net, size_t cases, double observedFraction, uint64_t seed,
                          std::ostream &out);

// The most cases `zbddc sample` writes: a batch of more (each case's line takes at least two
// bytes) would exceed what the .evid reader reads (kEvidenceTextLimit, ir/file_io.h).
inline constexpr size_t kMaxSampledCases = kEvidenceTextLimit / 2;

} // namespace zbddc
