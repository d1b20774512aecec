#include "ir/so_metadata.h"

#include <ostream>

namespace zbddc {

void writeMetadataHeader(std::ostream &out, std::string_view kind, unsigned version) {
    out << "zbdd-" << kind << " " << version << "\n";
}

void writeMetadataFacts(std::ostream &out, const MetadataFacts &facts) {
    for (const auto &[key, value] : facts)
        out << encodeName(key) << " " << encodeName(value) << "\n";
}

Status readMetadata(std::string_view text, std::string_view kind, const std::string &where,
                    unsigned oldest, unsigned newest,
                    const std::function<Status(TokenCursor &in, MetadataFacts &facts)> &body) {
    TokenCursor in(text, where, '\0');
    MetadataFacts facts;
    const std::string header = "zbdd-" + std::string(kind);
    auto first = in.token("'" + header + "'");
    if (!first)
        return first.error();
    if (*first != header)
        return in.fail("not the metadata of a " + std::string(kind) + ".so: it starts '" +
                       shownToken(*first) + "', not '" + header + "'");
    auto version = in.unsignedInt("metadata version");
    if (!version)
        return version.error();
    if (*version < oldest || *version > newest)
        return in.fail(std::string(kind) + ".so metadata version " + std::to_string(*version) +
                       " is not " +
                       (oldest == newest ? "the supported " + std::to_string(newest)
                                         : "one of the supported " + std::to_string(oldest) +
                                               " to " + std::to_string(newest)) +
                       " (compile it again)");
    while (!in.peekIs("variables")) {
        auto key = in.name("a fact or 'variables'");
        if (!key)
            return key.error();
        auto value = in.name("the value of '" + *key + "'");
        if (!value)
            return value.error();
        facts.emplace_back(std::move(*key), std::move(*value));
    }
    if (Status s = body(in, facts); !s)
        return s;
    if (!in.atEnd())
        return in.fail("unexpected text at the end of the metadata");
    return Ok{};
}

const std::string *findFact(const MetadataFacts &facts, std::string_view key) {
    for (const auto &[k, value] : facts)
        if (k == key)
            return &value;
    return nullptr;
}

void writeVariableList(std::ostream &out, const std::vector<Variable> &variables) {
    out << "variables " << variables.size() << "\n";
    for (const Variable &v : variables) {
        out << "variable " << encodeName(v.name) << " " << v.states.size();
        for (const std::string &s : v.states)
            out << " " << encodeName(s);
        out << "\n";
    }
}

Result<uint64_t> readCount(TokenCursor &in, std::string_view keyword, uint64_t max) {
    if (Status s = in.expect(keyword); !s)
        return s.error();
    return in.unsignedInt("the number of " + std::string(keyword), max);
}

Result<std::vector<Variable>> readVariableList(TokenCursor &in) {
    auto nv = readCount(in, "variables", 1u << 30);
    if (!nv)
        return nv.error();
    std::vector<Variable> variables;
    for (uint64_t v = 0; v < *nv; ++v) {
        if (Status s = in.expect("variable"); !s)
            return s.error();
        Variable var;
        auto name = in.name("variable name");
        if (!name)
            return name.error();
        var.name = *name;
        auto ns = in.unsignedInt("number of states", 1u << 30);
        if (!ns)
            return ns.error();
        if (*ns == 0)
            return in.fail("variable '" + var.name + "' has no states");
        for (uint64_t s = 0; s < *ns; ++s) {
            auto state = in.name("state name");
            if (!state)
                return state.error();
            var.states.push_back(*state);
        }
        variables.push_back(std::move(var));
    }
    return variables;
}

} // namespace zbddc
