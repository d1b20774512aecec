// Evidence: an observed state (or none) for each model variable, read from a `VAR=state,...` list
// or a UAI .evid file. Several cases at once form a batch.
#pragma once

#include "ir/circuit.h"
#include "ir/input_batch.h"
#include "ir/model_interface.h"
#include "ir/result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zbddc {

// A variable observed in two different states is in no state: every indicator of it is 0, so
// the case has P(e) = 0 on any model and route (a state index no variable has).
inline constexpr uint32_t kContradicted = kNone - 1;

// states[v] is the observed state of variables[v], kNone, or kContradicted.
struct Evidence {
    std::vector<uint32_t> states;
    std::string contradiction; // why the case is contradicted ("variable 'A' is observed as 'a' and 'b'")
};

Evidence noEvidence(const std::vector<Variable> &variables);

// "A=yes,B=no" (commas or spaces between items). Unknown names are errors. The same state twice
// is accepted; two different states make the case contradicted (kContradicted, P(e) = 0): the
// last one used to win, silently. The UAI reader below follows the same rule.
Result<Evidence> parseEvidenceList(std::string_view list, const std::vector<Variable> &variables);

// The two layouts of a UAI .evid file: one case on one line, "n v1 s1 ... vn sn" (2014 and
// later), or a batch, the number of cases alone on the first line and then one such case per
// line (2010). Detect decides by the file's line structure; Single and Batch are for the files
// it cannot decide ("2\n1 0 1\n0" is a batch of two, or one case of two observations spread
// over lines).
enum class EvidenceLayout { Detect, Single, Batch };
std::optional<EvidenceLayout> parseEvidenceLayout(std::string_view name); // "single", "batch"

struct EvidenceFile {
    std::vector<Evidence> cases;
    bool batch = false; // read in the 2010 layout: answers are printed in it too
};

// Variables and states are indices in the model's variable order.
Result<EvidenceFile> parseUaiEvidence(std::string_view text, const std::string &name,
                                      const std::vector<Variable> &variables,
                                      EvidenceLayout layout = EvidenceLayout::Detect);
Result<EvidenceFile> readUaiEvidenceFile(const std::string &path,
                                         const std::vector<Variable> &variables,
                                         EvidenceLayout layout = EvidenceLayout::Detect);

// The model's input vector for one case: indicators 1 where consistent with the evidence, else
// 0; parameters their values; free inputs from `freeValues` (in order of the free inputs).
Result<std::vector<double>> inputVector(const ModelInterface &model, const Evidence &evidence,
                                        const std::vector<double> &freeValues = {});

// The model's indicator inputs, ascending: what evidence sets, and what MAR and MPE read back.
std::vector<uint32_t> indicatorInputs(const ModelInterface &model);

// The same vectors for a batch of cases (ir/input_batch.h): parameters and free inputs shared,
// the indicators varying. `evidenceBatch` has no case yet; `addEvidence` appends one (whose
// states must number the model's variables).
Result<InputBatch> evidenceBatch(const ModelInterface &model,
                                 const std::vector<double> &freeValues = {});
void addEvidence(const ModelInterface &model, const Evidence &evidence, InputBatch &batch);
// The values of the indicator inputs `indicators` (ascending) for one case, into `values`.
void indicatorValues(const ModelInterface &model, std::span<const uint32_t> indicators,
                     const Evidence &evidence, std::span<double> values);

} // namespace zbddc
