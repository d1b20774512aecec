// One entry point from a model file to the compiler's data, chosen by the file's extension:
// .zdd (ours or SAPPOROBDD's export), or a Bayesian network (.bif, .xmlbif/.xml, .net, .uai)
// compiled into its MLF as a ZBDD (Minato, Satoh, Sato 2007); a knowledge compiler's d-DNNF
// (.nnf) or SDD (.sdd) becomes a circuit without a ZBDD (compiler/frontends/circuits).
#pragma once

#include "compiler/frontends/zdd/zdd_model.h"
#include "compiler/mlf/mlf_compile.h"
#include "ir/circuit.h"
#include "ir/result.h"

#include <string>
#include <vector>

namespace zbddc {

struct LoadOptions {
    bool strict = false; // network rows that do not sum to 1 are errors, not warnings
    MlfOptions mlf;
    std::vector<Diagnostic> *warnings = nullptr; // where accepted oddities are reported
    std::string weights; // .nnf and .sdd: the literal weights file ("": every weight 1)
};

bool isNetworkFile(const std::string &path);

// A ZBDD-compressed MLF, read or compiled.
Result<ZddModel> loadZddModel(const std::string &path, const LoadOptions &options = {});

// The model's circuit (Minato et al. 2011 typeA/typeB lowering of its ZBDD, or a d-DNNF's
// smoothed ⊕/⊗ circuit), verified.
Result<Circuit> loadCircuit(const std::string &path, const LoadOptions &options = {});
// The same from a ZBDD already loaded from `path` (which names the error).
Result<Circuit> lowerVerified(const ZddModel &zdd, const std::string &path);

std::string fileExtension(const std::string &path); // lower-case, with the dot; "" if none

} // namespace zbddc
