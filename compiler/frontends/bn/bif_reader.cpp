// BIF (the interchange format of JavaBayes, as bnlearn and pgmpy write it): docs/formats/bif.md.
#include "compiler/frontends/bn/bayes_net.h"

#include "ir/text_lines.h"

#include <string>
#include <unordered_set>

namespace zbddc {

namespace {
// Puts blanks around BIF's punctuation so TokenCursor sees it as separate tokens, and blanks out
// // and /* */ comments; newlines stay where they are so lines still count right. An unterminated
// /* comment is an error at its opening line (it would silently drop the rest of the file).
Result<std::string> spacePunctuation(std::string_view text, const std::string &file) {
    std::string out;
    size_t line = 1;
    out.reserve(text.size() + text.size() / 4);
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        line += c == '\n';
        if (quoted) {
            out += c;
            quoted = c != '"';
        } else if (c == '"') {
            out += c;
            quoted = true;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            while (i < text.size() && text[i] != '\n')
                ++i;
            if (i < text.size()) {
                out += '\n';
                ++line;
            }
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            const size_t opened = line;
            for (i += 2; i < text.size() && !(text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/'); ++i) {
                out += text[i] == '\n' ? '\n' : ' ';
                line += text[i] == '\n';
            }
            if (i >= text.size())
                return errorAt(file, opened, "unterminated /* comment");
            ++i;
        } else if (c == '{' || c == '}' || c == '(' || c == ')' || c == '[' || c == ']' ||
                   c == ';' || c == ',' || c == '|') {
            out += ' ';
            out += c;
            out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

class BifParser {
  public:
    BifParser(std::string_view text, const std::string &file) : in_(text, file, '\0') {
        net_.file = file;
    }

    Result<BayesNet> run() {
        while (!in_.atEnd()) {
            auto t = in_.token("'network', 'variable' or 'probability'");
            if (!t)
                return t.error();
            Status st = Ok{};
            if (*t == "network")
                st = network();
            else if (*t == "variable")
                st = variable();
            else if (*t == "probability")
                st = probability();
            else
                return in_.fail("expected 'network', 'variable' or 'probability', found " +
                                shownToken(*t));
            if (!st)
                return st.error();
        }
        for (size_t v = 0; v < net_.variables.size(); ++v)
            if (!seenCpt_[v])
                return errorAt(net_.file, declLine_[v],
                               "variable '" + net_.variables[v].name + "' has no probability block");
        return std::move(net_);
    }

  private:
    Status skipUntil(std::string_view end) { // property lines and network blocks
        for (;;) {
            auto t = in_.token("'" + std::string(end) + "'");
            if (!t)
                return t.error();
            if (*t == end)
                return Ok{};
        }
    }

    // The statements of a { } block up to its closing '}': `property ... ;` skipped, every other
    // one handed to item(keyword), which reads the rest of it.
    template <class Item> Status blockItems(std::string_view expected, Item item) {
        for (;;) {
            auto t = in_.token(expected);
            if (!t)
                return t.error();
            if (*t == "}")
                return Ok{};
            if (auto st = *t == "property" ? skipUntil(";") : item(*t); !st)
                return st;
        }
    }

    Status network() {
        auto name = in_.token("network name");
        if (!name)
            return name.error();
        net_.name = *name;
        if (auto st = in_.expect("{"); !st)
            return st;
        return skipUntil("}");
    }

    Status variable() {
        const size_t line = in_.line();
        auto name = in_.token("variable name");
        if (!name)
            return name.error();
        if (net_.find(std::string(*name)) != UINT32_MAX)
            return in_.fail("duplicate variable '" + std::string(*name) + "'");
        BnVariable var;
        var.name = *name;
        var.line = line;
        if (auto st = in_.expect("{"); !st)
            return st;
        if (auto st = blockItems("'type', 'property' or '}'",
                                 [&](std::string_view t) { return typeStatement(t, var); });
            !st)
            return st;
        if (var.states.empty())
            return errorAt(net_.file, line, "variable '" + var.name + "' has no type");
        net_.variables.push_back(std::move(var));
        declLine_.push_back(line);
        seenCpt_.push_back(false);
        return Ok{};
    }

    // "type discrete [ n ] { s1, s2, ... };" after its keyword `t`.
    Status typeStatement(std::string_view t, BnVariable &var) {
        if (t != "type")
            return in_.fail("expected 'type', 'property' or '}', found " + shownToken(t));
        if (auto st = in_.expect("discrete"); !st)
            return st;
        if (auto st = in_.expect("["); !st)
            return st;
        auto count = in_.unsignedInt("number of states", 1u << 20);
        if (!count)
            return count.error();
        if (*count == 0)
            return in_.fail("variable '" + var.name +
                            "' declares 0 states (a variable needs "
                            "at least one)");
        if (auto st = in_.expect("]"); !st)
            return st;
        if (auto st = in_.expect("{"); !st)
            return st;
        std::unordered_set<std::string_view> seen; // views into the text, which outlives it
        for (;;) {
            auto s = in_.token("state name");
            if (!s)
                return s.error();
            if (*s == "}")
                break;
            if (*s == ",")
                continue;
            if (!seen.emplace(*s).second)
                return in_.fail("duplicate state '" + std::string(*s) + "' of '" + var.name + "'");
            var.states.emplace_back(*s);
        }
        if (var.states.size() != *count)
            return in_.fail("variable '" + var.name + "' declares " + std::to_string(*count) +
                            " states but lists " + std::to_string(var.states.size()));
        return in_.expect(";");
    }

    Result<uint32_t> knownVariable() {
        auto name = in_.token("variable name");
        if (!name)
            return name.error();
        const uint32_t v = net_.find(std::string(*name));
        if (v == UINT32_MAX)
            return in_.fail("unknown variable '" + std::string(*name) + "'");
        return v;
    }

    // Numbers up to ';', commas optional.
    Status numbers(std::vector<double> &out) {
        out.clear();
        for (;;) {
            auto t = in_.token("probability or ';'");
            if (!t)
                return t.error();
            if (*t == ";")
                return Ok{};
            if (*t == ",")
                continue;
            double p = 0;
            if (!parseDouble(*t, p))
                return in_.fail("expected a probability, found " + shownToken(*t));
            out.push_back(p);
        }
    }

    Status probability() {
        const size_t line = in_.line();
        if (auto st = in_.expect("("); !st)
            return st;
        auto child = knownVariable();
        if (!child)
            return child.error();
        BnVariable &var = net_.variables[*child];
        if (seenCpt_[*child])
            return in_.fail("second probability block for '" + var.name + "'");
        seenCpt_[*child] = true;
        var.line = line;
        auto t = in_.token("'|' or ')'");
        if (!t)
            return t.error();
        if (*t == "|") {
            for (;;) {
                auto p = knownVariable();
                if (!p)
                    return p.error();
                for (uint32_t old : var.parents)
                    if (old == *p)
                        return in_.fail("parent '" + net_.variables[*p].name + "' listed twice");
                var.parents.push_back(*p);
                auto sep = in_.token("',' or ')'");
                if (!sep)
                    return sep.error();
                if (*sep == ")")
                    break;
                if (*sep != ",")
                    return in_.fail("expected ',' or ')', found " + shownToken(*sep));
            }
        } else if (*t != ")") {
            return in_.fail("expected '|' or ')', found " + shownToken(*t));
        }
        if (auto st = in_.expect("{"); !st)
            return st;
        return cptEntries(*child);
    }

    Status cptEntries(uint32_t child) {
        BnVariable &var = net_.variables[child];
        const size_t k = var.states.size(), rows = net_.rowCount(child);
        if (net_.cptEntries(child) == SIZE_MAX)
            return in_.fail(cptTooLarge(net_, child));
        var.cpt.assign(rows * k, 0.0);
        std::vector<bool> given(rows, false);
        std::vector<double> values, fallback;
        bool hasDefault = false;
        auto item = [&](std::string_view t) -> Status {
            if (t == "table") {
                if (auto st = numbers(values); !st)
                    return st;
                if (values.size() != rows * k)
                    return in_.fail("table of '" + var.name + "' has " + std::to_string(values.size()) +
                                    " entries, expected " + std::to_string(rows * k));
                // A table lists the variable's states slowest, parent rows fastest (pgmpy's
                // reading of JavaBayes): transpose into our row-major layout.
                for (size_t x = 0; x < k; ++x)
                    for (size_t r = 0; r < rows; ++r)
                        var.cpt[r * k + x] = values[x * rows + r];
                given.assign(rows, true);
            } else if (t == "default") {
                if (auto st = numbers(fallback); !st)
                    return st;
                if (fallback.size() != k)
                    return in_.fail("default row of '" + var.name + "' has " +
                                    std::to_string(fallback.size()) + " entries, expected " +
                                    std::to_string(k));
                hasDefault = true;
            } else if (t == "(") {
                auto row = rowIndex(var);
                if (!row)
                    return row.error();
                if (given[*row])
                    return in_.fail("row of '" + var.name + "' given twice");
                if (auto st = numbers(values); !st)
                    return st;
                if (values.size() != k)
                    return in_.fail("row of '" + var.name + "' has " + std::to_string(values.size()) +
                                    " entries, expected " + std::to_string(k));
                std::copy(values.begin(), values.end(), var.cpt.begin() + *row * k);
                given[*row] = true;
            } else {
                return in_.fail("expected 'table', 'default', '(' or '}', found " + shownToken(t));
            }
            return Ok{};
        };
        if (auto st = blockItems("'table', 'default', '(' or '}'", item); !st)
            return st;
        for (size_t r = 0; r < rows; ++r) {
            if (given[r])
                continue;
            if (!hasDefault)
                return errorAt(net_.file, var.line,
                               "CPT of '" + var.name + "' misses row " + std::to_string(r) + " (and has no default)");
            std::copy(fallback.begin(), fallback.end(), var.cpt.begin() + r * k);
        }
        return Ok{};
    }

    // "(s0, s1, ...)" after the '(': parent states in parent order; last parent fastest.
    Result<size_t> rowIndex(const BnVariable &var) {
        size_t row = 0;
        for (size_t i = 0; i < var.parents.size(); ++i) {
            const BnVariable &parent = net_.variables[var.parents[i]];
            auto s = in_.token("state of '" + parent.name + "'");
            if (!s)
                return s.error();
            const uint32_t state = net_.findState(var.parents[i], *s);
            if (state == UINT32_MAX)
                return in_.fail("unknown state '" + std::string(*s) + "' of variable '" + parent.name + "'");
            row = row * parent.states.size() + state;
            auto sep = in_.token(i + 1 < var.parents.size() ? "','" : "')'");
            if (!sep)
                return sep.error();
            if (*sep != (i + 1 < var.parents.size() ? "," : ")"))
                return in_.fail("expected " +
                                std::string(i + 1 < var.parents.size() ? "','" : "')'") +
                                ", found " + shownToken(*sep));
        }
        if (var.parents.empty())
            if (auto st = in_.expect(")"); !st)
                return st.error();
        return row;
    }

    TokenCursor in_;
    BayesNet net_;
    std::vector<size_t> declLine_;
    std::vector<bool> seenCpt_;
};
} // namespace

Result<BayesNet> parseBif(std::string_view text, const std::string &file) {
    const Result<std::string> spaced = spacePunctuation(text, file);
    if (!spaced)
        return spaced.error();
    return BifParser(*spaced, file).run();
}

} // namespace zbddc
