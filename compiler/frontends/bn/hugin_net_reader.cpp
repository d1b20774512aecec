// Hugin .net networks (discrete nodes and conditional potentials): docs/formats/hugin-net.md.
#include "compiler/frontends/bn/bayes_net.h"

#include "ir/text_lines.h"

#include <cctype>
#include <unordered_set>

namespace zbddc {

namespace {
// Hugin's quoted strings may hold blanks, so it gets its own small lexer (TokenCursor splits on
// blanks); diagnostics keep the common file:line form.
class NetLexer {
  public:
    NetLexer(std::string_view text, std::string file) : text_(text), file_(std::move(file)) {}

    struct Token {
        std::string text;
        bool quoted = false;
    };

    bool atEnd() {
        skipBlank();
        return pos_ >= text_.size();
    }
    size_t line() const { return line_; }
    Diagnostic fail(const std::string &message) const { return errorAt(file_, line_, message); }

    Result<Token> next(std::string_view what) {
        if (atEnd())
            return fail("unexpected end of file, expected " + std::string(what));
        const char c = text_[pos_];
        if (c == '"') {
            // A backslash takes the next character as it is (\" is a quote inside the string).
            const size_t opened = line_;
            std::string text;
            for (++pos_; pos_ < text_.size() && text_[pos_] != '"'; ++pos_) {
                if (text_[pos_] == '\\' && pos_ + 1 < text_.size())
                    ++pos_;
                line_ += text_[pos_] == '\n';
                text += text_[pos_];
            }
            if (pos_ >= text_.size()) // said where it opened: its end is the end of the file
                return errorAt(file_, opened, "unterminated string");
            ++pos_;
            return Token{std::move(text), true};
        }
        if (std::string_view("{}()=;|").find(c) != std::string_view::npos)
            return Token{std::string(1, text_[pos_++]), false};
        const size_t start = pos_;
        while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_])) &&
               std::string_view("{}()=;|\"%").find(text_[pos_]) == std::string_view::npos)
            ++pos_;
        return Token{std::string(text_.substr(start, pos_ - start)), false};
    }

    Status expect(std::string_view symbol) {
        auto t = next("'" + std::string(symbol) + "'");
        if (!t)
            return t.error();
        if (t->quoted || t->text != symbol)
            return fail("expected '" + std::string(symbol) + "', found " + shownToken(t->text));
        return Ok{};
    }

  private:
    void skipBlank() {
        while (pos_ < text_.size()) {
            if (text_[pos_] == '%')
                while (pos_ < text_.size() && text_[pos_] != '\n')
                    ++pos_;
            else if (std::isspace(static_cast<unsigned char>(text_[pos_])))
                line_ += text_[pos_++] == '\n';
            else
                return;
        }
    }
    std::string_view text_;
    std::string file_;
    size_t pos_ = 0, line_ = 1;
};

class HuginParser {
  public:
    HuginParser(std::string_view text, const std::string &file) : in_(text, file) { net_.file = file; }

    Result<BayesNet> run() {
        while (!in_.atEnd()) {
            auto t = in_.next("'net', 'node' or 'potential'");
            if (!t)
                return t.error();
            Status st = Ok{};
            if (t->text == "net") {
                st = in_.expect("{");
                if (st)
                    st = attributes(nullptr);
            } else if (t->text == "node" || t->text == "discrete") {
                if (t->text == "discrete")
                    st = in_.expect("node");
                if (st)
                    st = node();
            } else if (t->text == "potential") {
                st = potential();
            } else if (t->text == "continuous") {
                return in_.fail("continuous nodes are not supported");
            } else {
                return in_.fail("expected 'net', 'node' or 'potential', found " +
                                shownToken(t->text));
            }
            if (!st)
                return st.error();
        }
        for (size_t v = 0; v < net_.variables.size(); ++v)
            if (!hasCpt_[v])
                return errorAt(net_.file, net_.variables[v].line,
                               "node '" + net_.variables[v].name + "' has no potential");
        return std::move(net_);
    }

  private:
    // `name = value;` pairs up to '}'. With var, `states = ("a" "b");` fills its states.
    Status attributes(BnVariable *var) {
        for (;;) {
            auto key = in_.next("attribute or '}'");
            if (!key)
                return key.error();
            if (!key->quoted && key->text == "}")
                return Ok{};
            if (auto st = in_.expect("="); !st)
                return st;
            const bool states = var && key->text == "states";
            std::unordered_set<std::string> seen; // a hash: 10^5 states read in linear time
            int depth = 0;
            for (;;) {
                auto t = in_.next("';'");
                if (!t)
                    return t.error();
                if (!t->quoted && t->text == "(")
                    ++depth;
                else if (!t->quoted && t->text == ")")
                    --depth;
                else if (!t->quoted && t->text == ";" && depth == 0)
                    break;
                else if (states) {
                    if (!seen.insert(t->text).second)
                        return in_.fail("duplicate state '" + t->text + "' of '" + var->name + "'");
                    var->states.push_back(t->text);
                }
            }
        }
    }

    Status node() {
        auto name = in_.next("node name");
        if (!name)
            return name.error();
        if (net_.find(name->text) != UINT32_MAX)
            return in_.fail("duplicate node '" + name->text + "'");
        BnVariable var;
        var.name = name->text;
        var.line = in_.line();
        if (auto st = in_.expect("{"); !st)
            return st;
        if (auto st = attributes(&var); !st)
            return st;
        if (var.states.empty())
            return errorAt(net_.file, var.line, "node '" + var.name + "' has no states");
        net_.variables.push_back(std::move(var));
        hasCpt_.push_back(false);
        return Ok{};
    }

    Result<uint32_t> known(const std::string &name) {
        const uint32_t v = net_.find(name);
        if (v == UINT32_MAX)
            return in_.fail("unknown node '" + name + "'");
        return v;
    }

    Status potential() {
        if (auto st = in_.expect("("); !st)
            return st;
        auto childName = in_.next("node name");
        if (!childName)
            return childName.error();
        auto child = known(childName->text);
        if (!child)
            return child.error();
        if (hasCpt_[*child])
            return in_.fail("second potential for '" + childName->text + "'");
        hasCpt_[*child] = true;
        BnVariable &var = net_.variables[*child];
        var.line = in_.line();
        auto t = in_.next("'|' or ')'");
        if (!t)
            return t.error();
        if (t->text == "|") {
            for (;;) {
                auto p = in_.next("parent or ')'");
                if (!p)
                    return p.error();
                if (!p->quoted && p->text == ")")
                    break;
                auto parent = known(p->text);
                if (!parent)
                    return parent.error();
                var.parents.push_back(*parent);
            }
        } else if (t->text != ")") {
            return in_.fail("joint potentials are not supported: expected '|' or ')', found " +
                            shownToken(t->text));
        }
        if (auto st = in_.expect("{"); !st)
            return st;
        for (;;) { // data = ( ... ); among other attributes; numbers in order, parentheses ignored
            auto key = in_.next("'data' or '}'");
            if (!key)
                return key.error();
            if (key->text == "}")
                break;
            if (auto st = in_.expect("="); !st)
                return st;
            const bool data = key->text == "data";
            int depth = 0;
            for (;;) {
                auto v = in_.next("';'");
                if (!v)
                    return v.error();
                if (v->text == "(")
                    ++depth;
                else if (v->text == ")")
                    --depth;
                else if (v->text == ";" && depth == 0)
                    break;
                else if (data) {
                    double p = 0;
                    if (v->quoted || !parseDouble(v->text, p))
                        return in_.fail("expected a probability, found " + shownToken(v->text));
                    var.cpt.push_back(p);
                }
            }
        }
        const size_t expected = net_.cptEntries(*child);
        if (expected == SIZE_MAX)
            return in_.fail(cptTooLarge(net_, *child));
        if (var.cpt.size() != expected)
            return in_.fail("potential of '" + var.name + "' has " + std::to_string(var.cpt.size()) +
                            " entries, expected " + std::to_string(expected));
        return Ok{};
    }

    NetLexer in_;
    BayesNet net_;
    std::vector<bool> hasCpt_;
};
} // namespace

Result<BayesNet> parseHuginNet(std::string_view text, const std::string &file) {
    return HuginParser(text, file).run();
}

} // namespace zbddc
