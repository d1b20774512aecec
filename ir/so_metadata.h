// The one grammar of the metadata text every .so zbddc writes carries (model.so, network.so,
// problem.so; docs/c-api.md): a header `zbdd-KIND VERSION`, then records of whitespace-separated
// tokens, names percent-encoded (encodeName in ir/text_lines.h): `key value` facts, then a
// variables block. Each kind's reader takes its records from the cursor readMetadataHeader returns.
#pragma once

#include "ir/circuit.h" // Variable
#include "ir/result.h"
#include "ir/text_lines.h"

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zbddc {

using MetadataFacts = std::vector<std::pair<std::string, std::string>>;

void writeMetadataHeader(std::ostream &out, std::string_view kind, unsigned version);
// `key value` records, both names.
void writeMetadataFacts(std::ostream &out, const MetadataFacts &facts);

// A whole metadata text of `kind`: the header `zbdd-KIND V` with V in [oldest, newest], the facts
// up to the keyword `variables`, then `body` reads the kind's own records from there, and nothing
// may follow them. `where` names the text in messages (`where:line: ...`).
Status readMetadata(std::string_view text, std::string_view kind, const std::string &where,
                    unsigned oldest, unsigned newest,
                    const std::function<Status(TokenCursor &in, MetadataFacts &facts)> &body);
// The value of `key`, or nullptr.
const std::string *findFact(const MetadataFacts &facts, std::string_view key);

// A record `keyword N`, N at most `max`: the count of the records that follow.
Result<uint64_t> readCount(TokenCursor &in, std::string_view keyword, uint64_t max);

// The variables block of a model.so's and a network.so's metadata: `variables N`, then per
// variable `variable NAME COUNT STATE...`. Every variable has a state.
void writeVariableList(std::ostream &out, const std::vector<Variable> &variables);
Result<std::vector<Variable>> readVariableList(TokenCursor &in);

} // namespace zbddc
