// XMLBIF 0.3 (JavaBayes' XML form of BIF): docs/formats/xmlbif.md. A small scanner for the few
// elements that matter (VARIABLE/NAME/OUTCOME, DEFINITION or PROBABILITY/FOR/GIVEN/TABLE); other
// elements (PROPERTY, NETWORK/NAME ...) are skipped.
#include "compiler/frontends/bn/bayes_net.h"

#include "ir/text_lines.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

namespace zbddc {

namespace {
std::string decodeEntities(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] != '&') {
            out += s[i];
            continue;
        }
        static const std::pair<std::string_view, char> table[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        bool done = false;
        for (auto [entity, ch] : table)
            if (s.substr(i, entity.size()) == entity) {
                out += ch;
                i += entity.size() - 1;
                done = true;
                break;
            }
        if (!done)
            out += '&';
    }
    return out;
}

std::string trim(std::string_view s) {
    const size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string_view::npos)
        return {};
    return std::string(s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1));
}

struct XmlEvent {
    enum Kind { Open, Close, Text } kind;
    std::string name; // tag (upper case) or text
    size_t line;
};

Result<std::vector<XmlEvent>> scanXml(std::string_view text, const std::string &file) {
    std::vector<XmlEvent> events;
    size_t pos = 0, line = 1;
    auto advance = [&](size_t to) {
        line += static_cast<size_t>(std::count(text.begin() + pos, text.begin() + to, '\n'));
        pos = to;
    };
    while (pos < text.size()) {
        const size_t lt = text.find('<', pos);
        const size_t end = lt == std::string_view::npos ? text.size() : lt;
        if (std::string t = trim(text.substr(pos, end - pos)); !t.empty())
            events.push_back({XmlEvent::Text, decodeEntities(t), line});
        advance(end);
        if (pos >= text.size())
            break;
        if (text.substr(pos, 9) == "<![CDATA[") { // text taken as it is, '<' and '&' included
            const size_t close = text.find("]]>", pos + 9);
            if (close == std::string_view::npos)
                return errorAt(file, line, "unterminated CDATA section");
            if (std::string t = trim(text.substr(pos + 9, close - pos - 9)); !t.empty())
                events.push_back({XmlEvent::Text, t, line});
            advance(close + 3);
            continue;
        }
        std::string_view closer = ">";
        if (text.substr(pos, 4) == "<!--")
            closer = "-->";
        else if (text.substr(pos, 2) == "<?")
            closer = "?>";
        const size_t gt = text.find(closer, pos);
        if (gt == std::string_view::npos)
            return errorAt(file, line, "unterminated tag");
        std::string_view tag = text.substr(pos + 1, gt - pos - 1);
        const size_t tagLine = line;
        advance(gt + closer.size());
        if (closer != ">" || tag.starts_with("!"))
            continue;
        const bool close = tag.starts_with("/"), selfClose = tag.ends_with("/");
        std::string name(tag.substr(close ? 1 : 0));
        name = name.substr(0, name.find_first_of(" \t\r\n/"));
        std::transform(name.begin(), name.end(), name.begin(), ::toupper);
        events.push_back({close ? XmlEvent::Close : XmlEvent::Open, name, tagLine});
        if (selfClose)
            events.push_back({XmlEvent::Close, name, tagLine});
    }
    return events;
}
} // namespace

Result<BayesNet> parseXmlBif(std::string_view text, const std::string &file) {
    auto scanned = scanXml(text, file);
    if (!scanned)
        return scanned.error();
    BayesNet net;
    net.file = file;
    struct Definition {
        std::string child;
        std::vector<std::string> given;
        std::string table;
        size_t line = 0, tableLine = 0;
    };
    std::vector<Definition> definitions;
    std::vector<std::string> path; // open elements
    for (const XmlEvent &e : *scanned) {
        if (e.kind == XmlEvent::Open) {
            path.push_back(e.name);
            if (e.name == "VARIABLE") {
                net.variables.emplace_back();
                net.variables.back().line = e.line;
            } else if (e.name == "DEFINITION" || e.name == "PROBABILITY") {
                definitions.emplace_back();
                definitions.back().line = e.line;
            }
            continue;
        }
        if (e.kind == XmlEvent::Close) {
            if (path.empty() || path.back() != e.name)
                return errorAt(file, e.line, "unexpected </" + e.name + ">");
            // An empty <OUTCOME></OUTCOME> is a state without a name, not no state.
            if (path.size() >= 2 && path[path.size() - 2] == "VARIABLE" &&
                (e.name == "OUTCOME" || e.name == "VALUE") && (&e)[-1].kind == XmlEvent::Open)
                return errorAt(file, e.line, "empty <" + e.name + ">: a state needs a name");
            path.pop_back();
            continue;
        }
        if (path.size() < 2)
            continue;
        const std::string &leaf = path.back(), &block = path[path.size() - 2];
        if (block == "VARIABLE" && leaf == "NAME")
            net.variables.back().name = e.name;
        else if (block == "VARIABLE" && (leaf == "OUTCOME" || leaf == "VALUE"))
            net.variables.back().states.push_back(e.name);
        else if ((block == "DEFINITION" || block == "PROBABILITY") && leaf == "FOR")
            definitions.back().child = e.name;
        else if ((block == "DEFINITION" || block == "PROBABILITY") && leaf == "GIVEN")
            definitions.back().given.push_back(e.name);
        else if ((block == "DEFINITION" || block == "PROBABILITY") && leaf == "TABLE") {
            definitions.back().table += " " + e.name;
            definitions.back().tableLine = e.line;
        }
    }
    if (!path.empty())
        return errorAt(file, 0, "unexpected end of file inside <" + path.back() + ">");
    for (size_t v = 0; v < net.variables.size(); ++v) {
        const BnVariable &var = net.variables[v];
        if (var.name.empty())
            return errorAt(file, var.line, "variable without a NAME");
        if (net.find(var.name) != v)
            return errorAt(file, var.line, "duplicate variable '" + var.name + "'");
        std::unordered_set<std::string_view> seen; // a hash: 10^5 states read in linear time
        for (const std::string &state : var.states)
            if (!seen.insert(state).second)
                return errorAt(file, var.line, "duplicate state '" + state + "' of '" + var.name + "'");
    }
    std::vector<bool> has(net.variables.size(), false);
    for (const Definition &d : definitions) {
        const uint32_t child = net.find(d.child);
        if (child == UINT32_MAX)
            return errorAt(file, d.line, "unknown variable '" + d.child + "'");
        if (has[child])
            return errorAt(file, d.line, "second definition for '" + d.child + "'");
        has[child] = true;
        BnVariable &var = net.variables[child];
        var.line = d.line;
        for (const std::string &g : d.given) {
            const uint32_t p = net.find(g);
            if (p == UINT32_MAX)
                return errorAt(file, d.line, "unknown variable '" + g + "'");
            var.parents.push_back(p);
        }
        // TABLE lists the FOR variable fastest, GIVEN rows in order (last GIVEN fastest): our layout.
        std::istringstream values(d.table);
        for (std::string token; values >> token;) {
            double p = 0;
            if (!parseDouble(token, p))
                return errorAt(file, d.tableLine,
                               "expected a probability, found " + shownToken(token));
            var.cpt.push_back(p);
        }
    }
    for (size_t v = 0; v < net.variables.size(); ++v)
        if (!has[v])
            return errorAt(file, net.variables[v].line, "variable '" + net.variables[v].name + "' has no DEFINITION");
    return net;
}

} // namespace zbddc
