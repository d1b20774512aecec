// Reader for the .zdd text format (docs/formats/zdd.md). Every malformed input ends in one
// Diagnostic naming file:line; nothing is half-built on failure.
#include "compiler/frontends/zdd/zdd_format.h"
#include "ir/indicator_set.h"
#include "ir/text_lines.h"

#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace zbddc {
namespace {

class ZddParser {
  public:
    ZddParser(std::string_view text, const std::string &name) : in_(text, name) {}

    Result<ZddModel> parse() {
        for (auto step : {&ZddParser::header, &ZddParser::variables, &ZddParser::inputs,
                          &ZddParser::nodes, &ZddParser::roots, &ZddParser::end})
            if (Status s = (this->*step)(); !s)
                return s.error();
        return std::move(model_);
    }

  private:
    using Fail = Diagnostic;

    Status endOfLine() {
        if (!in_.atLineEnd()) {
            auto extra = in_.token("");
            return in_.fail("unexpected '" + std::string(extra.ok() ? *extra : "") + "' at end of line");
        }
        return Ok{};
    }

    Status header() {
        if (in_.atEnd())
            return in_.fail("empty file, expected 'zdd 1'");
        auto magic = in_.token("'zdd'");
        if (*magic != "zdd")
            return in_.fail("not a .zdd file: expected 'zdd 1' as the first line");
        auto version = in_.unsignedInt("format version");
        if (!version)
            return version.error();
        if (*version != 1)
            return in_.fail("unsupported .zdd version " + std::to_string(*version) + " (this reader knows 1)");
        return endOfLine();
    }

    Status variables() {
        std::unordered_set<std::string> names;
        while (in_.peekIs("variable")) {
            (void)in_.token("'variable'");
            auto name = in_.name("variable name");
            if (!name)
                return name.error();
            if (!names.insert(std::string(*name)).second)
                return in_.fail("duplicate variable '" + std::string(*name) + "'");
            auto count = in_.unsignedInt("number of states", 1u << 20);
            if (!count)
                return count.error();
            if (*count == 0)
                return in_.fail("variable '" + std::string(*name) + "' has no states");
            Variable v{std::string(*name), {}};
            std::unordered_set<std::string> states;
            for (uint64_t s = 0; s < *count; ++s) {
                if (in_.atLineEnd())
                    return in_.fail("variable '" + v.name + "' lists fewer than " + std::to_string(*count) + " states");
                auto state = in_.name("state name");
                if (!state)
                    return state.error();
                if (!states.insert(*state).second)
                    return in_.fail("duplicate state '" + std::string(*state) + "' of variable '" + v.name + "'");
                v.states.emplace_back(*state);
            }
            if (Status s = endOfLine(); !s)
                return s;
            variableIndex_[v.name] = static_cast<uint32_t>(model_.variables.size());
            model_.variables.push_back(std::move(v));
        }
        return Ok{};
    }

    Result<uint32_t> stateOf(const Variable &v, std::string_view state) {
        for (uint32_t s = 0; s < v.states.size(); ++s)
            if (v.states[s] == state)
                return s;
        return in_.fail("unknown state '" + std::string(state) + "' of variable '" + v.name + "'");
    }

    Status inputLine(uint64_t expected) {
        auto index = in_.unsignedInt("input index");
        if (!index)
            return index.error();
        if (*index != expected)
            return in_.fail("input " + std::to_string(*index) + " out of order, expected " + std::to_string(expected));
        auto kind = in_.token("input kind (indicator, parameter or free)");
        if (!kind)
            return kind.error();
        InputInfo info;
        if (*kind == "indicator") {
            info.kind = InputKind::Indicator;
            auto var = in_.name("variable name");
            if (!var)
                return var.error();
            auto it = variableIndex_.find(*var);
            if (it == variableIndex_.end())
                return in_.fail("unknown variable '" + std::string(*var) + "'");
            auto state = in_.name("state name");
            if (!state)
                return state.error();
            auto s = stateOf(model_.variables[it->second], *state);
            if (!s)
                return s.error();
            info.variable = it->second;
            info.state = *s;
        } else if (*kind == "parameter") {
            info.kind = InputKind::Parameter;
            auto value = in_.number("parameter value");
            if (!value)
                return value.error();
            if (!std::isfinite(*value) || *value < 0)
                return in_.fail("parameter value must be a finite non-negative number");
            info.value = *value;
        } else if (*kind == "free") {
            info.kind = InputKind::Free;
        } else {
            return in_.fail("unknown input kind '" + std::string(*kind) + "' (expected indicator, parameter or free)");
        }
        if (info.kind != InputKind::Indicator && !in_.atLineEnd()) {
            auto label = in_.name("label");
            if (!label)
                return label.error();
            info.name = std::move(*label);
        }
        if (std::string repeat = indicators_.add(info, model_.vars.size(), model_.variables);
            !repeat.empty())
            return in_.fail(repeat);
        model_.vars.push_back(std::move(info));
        return endOfLine();
    }

    // "<keyword> <count>" followed by exactly <count> record lines.
    template <class Record> Status section(std::string_view keyword, uint64_t max, Record record) {
        if (in_.atEnd())
            return in_.failAtEnd("unexpected end of file, expected '" + std::string(keyword) + "'");
        if (Status s = in_.expect(keyword); !s)
            return s;
        auto count = in_.unsignedInt(std::string(keyword) + " count", max);
        if (!count)
            return count.error();
        if (Status s = endOfLine(); !s)
            return s;
        for (uint64_t i = 0; i < *count; ++i) {
            if (in_.atEnd())
                return in_.failAtEnd("unexpected end of file: expected " + std::to_string(*count) + " " +
                                std::string(keyword) + " lines, found " + std::to_string(i));
            if (Status s = record(i); !s)
                return s;
        }
        return Ok{};
    }

    Status inputs() {
        return section("inputs", kNone - 1, [&](uint64_t i) { return inputLine(i); });
    }

    Result<uint32_t> reference(std::string_view what) {
        auto id = in_.unsignedInt(what, kNone - 1);
        if (!id)
            return id.error();
        if (*id <= kZddBase)
            return static_cast<uint32_t>(*id);
        auto it = denseId_.find(static_cast<uint32_t>(*id));
        if (it == denseId_.end())
            return in_.fail(std::string(what) + " " + std::to_string(*id) +
                            " is not a node defined above (children come first; cycles are impossible)");
        return it->second;
    }

    uint32_t varOf(uint32_t id) const { return id <= kZddBase ? kNone : model_.node(id).var; }

    Status nodeLine() {
        auto id = in_.unsignedInt("node id", kNone - 1);
        if (!id)
            return id.error();
        if (*id <= kZddBase)
            return in_.fail("node id " + std::to_string(*id) + " is reserved for a terminal (0 and 1)");
        if (denseId_.count(static_cast<uint32_t>(*id)))
            return in_.fail("duplicate node id " + std::to_string(*id));
        auto var = in_.unsignedInt("variable", kNone - 1);
        if (!var)
            return var.error();
        if (*var >= model_.vars.size())
            return in_.fail("variable " + std::to_string(*var) + " is out of range (there are " +
                            std::to_string(model_.vars.size()) + " inputs)");
        auto lo = reference("lo child");
        if (!lo)
            return lo.error();
        auto hi = reference("hi child");
        if (!hi)
            return hi.error();
        if (*hi == kZddEmpty)
            return in_.fail("node " + std::to_string(*id) + ": hi child is the 0 terminal (not zero-suppressed)");
        for (uint32_t child : {*lo, *hi})
            if (varOf(child) != kNone && varOf(child) <= *var)
                return in_.fail("node " + std::to_string(*id) + ": child has variable " +
                                std::to_string(varOf(child)) + ", not below variable " + std::to_string(*var));
        denseId_[static_cast<uint32_t>(*id)] = ZddModel::idOf(model_.nodes.size());
        model_.nodes.push_back({static_cast<uint32_t>(*var), *lo, *hi});
        return endOfLine();
    }

    Status nodes() {
        return section("nodes", kNone - 2, [&](uint64_t) { return nodeLine(); });
    }

    Status roots() {
        return section("roots", kNone - 1, [&](uint64_t) -> Status {
            auto root = reference("root");
            if (!root)
                return root.error();
            model_.roots.push_back(*root);
            std::string name;
            if (!in_.atLineEnd()) {
                auto decoded = in_.name("root name");
                if (!decoded)
                    return decoded.error();
                name = std::move(*decoded);
            }
            model_.rootNames.push_back(std::move(name));
            return endOfLine();
        });
    }

    Status end() {
        if (!in_.atEnd())
            return in_.fail("unexpected '" + std::string(*in_.token("")) + "' after the roots");
        return Ok{};
    }

    TokenCursor in_;
    ZddModel model_;
    std::unordered_map<std::string, uint32_t> variableIndex_;
    IndicatorSet indicators_;
    std::unordered_map<uint32_t, uint32_t> denseId_; // id in the file -> dense id
};

} // namespace

Result<ZddModel> parseZdd(std::string_view text, const std::string &name) {
    return ZddParser(text, name).parse();
}

Result<ZddModel> readZddFile(const std::string &path) {
    auto text = readTextFile(path);
    if (!text)
        return text.error();
    if (text->rfind("_i", 0) == 0)
        return parseSapporoZdd(*text, path);
    return parseZdd(*text, path);
}

} // namespace zbddc
