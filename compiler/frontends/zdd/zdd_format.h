// Reading and writing .zdd files (docs/formats/zdd.md), and SAPPOROBDD's ZBDD export format.
#pragma once

#include "compiler/frontends/zdd/zdd_model.h"
#include "ir/result.h"

#include <iosfwd>
#include <string>
#include <string_view>

namespace zbddc {

// `name` is used in diagnostics ("name:line: what is wrong").
Result<ZddModel> parseZdd(std::string_view text, const std::string &name);
Result<ZddModel> readZddFile(const std::string &path);

void writeZdd(const ZddModel &model, std::ostream &out);
std::string writeZddToString(const ZddModel &model);

// SAPPOROBDD's `ZBDD::Export` text (see docs/formats/zdd.md for how it maps): every variable
// becomes a free input, since that format carries no meaning for its variables.
Result<ZddModel> parseSapporoZdd(std::string_view text, const std::string &name);

} // namespace zbddc
