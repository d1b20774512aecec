// Evidence cases as Fast-BNI's benchmark draws them (Jiang et al. 2023): a joint state forward-
// sampled from the network (each variable from its CPT row once its parents are drawn), then each
// variable observed at its sampled state with a given probability, so every case has P(e) > 0.
// Deterministic for a seed.
#pragma once

#include "compiler/frontends/bn/bayes_net.h"
#include "runtime/evidence.h"

#include <cstdint>
#include <vector>

namespace zbddc {

std::vector<Evidence> sampleEvidence(const BayesNet &net, size_t cases, double observedFraction,
                                     uint64_t seed);

// The UAI batch layout: the number of cases, then per case "n v1 s1 ... vn sn" on one line.
std::string uaiEvidenceText(const std::vector<Evidence> &cases);

} // namespace zbddc
