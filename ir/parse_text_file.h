// A reader's read*File: the file read whole (readTextFile, its errors as they are) and its text
// handed to the reader's parse*, which names the file in its own errors.
#pragma once

#include "ir/text_lines.h"

#include <string>
#include <string_view>

namespace zbddc {

template <class Parse>
auto parseTextFile(const std::string &path, Parse parse, uint64_t limit = kModelTextLimit)
    -> decltype(parse(std::string_view{}, path)) {
    auto text = readTextFile(path, limit);
    if (!text)
        return text.error();
    return parse(*text, path);
}

} // namespace zbddc
