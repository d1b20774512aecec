#include "runtime/shared_model.h"

#include "ir/text_lines.h"
#include "zbdd_model.h"

#include <cctype>
#include <cstdlib>
#include <dlfcn.h>

namespace zbddc {
namespace {

// Inverse of encodeName (backends/cpu/metadata.cpp): "%" alone is the empty name.
std::optional<std::string> decodeName(std::string_view token) {
    if (token == "%")
        return std::string();
    std::string out;
    for (size_t i = 0; i < token.size(); ++i) {
        if (token[i] != '%') {
            out += token[i];
            continue;
        }
        if (i + 2 >= token.size())
            return std::nullopt;
        const std::string hex(token.substr(i + 1, 2));
        char *end = nullptr;
        const unsigned long v = std::strtoul(hex.c_str(), &end, 16);
        if (*end != '\0' || !std::isxdigit(static_cast<unsigned char>(hex[0])))
            return std::nullopt;
        out += static_cast<char>(v);
        i += 2;
    }
    return out;
}

Result<std::string> nameToken(TokenCursor &in, std::string_view what) {
    auto t = in.token(what);
    if (!t)
        return t.error();
    auto name = decodeName(*t);
    if (!name)
        return in.fail("bad percent-encoding in " + std::string(what) + " '" + std::string(*t) + "'");
    return *name;
}

Status readInput(TokenCursor &in, Circuit &c) {
    auto kind = in.token("input kind (indicator, parameter or free)");
    if (!kind)
        return kind.error();
    InputInfo info;
    if (*kind == "indicator") {
        auto v = in.unsignedInt("variable index", c.variables.empty() ? 0 : c.variables.size() - 1);
        if (!v)
            return v.error();
        if (c.variables.empty())
            return in.fail("indicator input in a model without variables");
        auto s = in.unsignedInt("state index", c.variables[*v].states.size() - 1);
        if (!s)
            return s.error();
        info.kind = InputKind::Indicator;
        info.variable = static_cast<uint32_t>(*v);
        info.state = static_cast<uint32_t>(*s);
    } else if (*kind == "parameter") {
        auto value = in.number("parameter value");
        if (!value)
            return value.error();
        info.kind = InputKind::Parameter;
        info.value = *value;
    } else if (*kind == "free") {
        info.kind = InputKind::Free;
    } else {
        return in.fail("unknown input kind '" + std::string(*kind) + "'");
    }
    auto name = nameToken(in, "input name");
    if (!name)
        return name.error();
    info.name = *name;
    c.addInputInfo(std::move(info));
    return Ok{};
}

} // namespace

Result<ModelMetadata> parseModelMetadata(std::string_view text, const std::string &name) {
    TokenCursor in(text, name, '\0');
    ModelMetadata m;
    if (Status s = in.expect("zbdd-model"); !s)
        return s.error();
    if (auto version = in.unsignedInt("metadata version", 1); !version)
        return version.error();
    if (Status s = in.expect("semiring"); !s)
        return s.error();
    auto ring = in.token("semiring");
    if (!ring)
        return ring.error();
    auto semiring = parseSemiring(*ring);
    if (!semiring)
        return in.fail("unknown semiring '" + std::string(*ring) + "'");
    m.semiring = *semiring;
    if (Status s = in.expect("numeric"); !s)
        return s.error();
    auto numeric = in.token("numeric mode");
    if (!numeric)
        return numeric.error();
    if (*numeric != "float64" && *numeric != "log")
        return in.fail("unknown numeric mode '" + std::string(*numeric) + "'");
    m.numeric = *numeric == "log" ? Numeric::Log : Numeric::Float64;

    Circuit &c = m.interface;
    c.semiring = m.semiring;
    if (Status s = in.expect("variables"); !s)
        return s.error();
    auto nv = in.unsignedInt("number of variables", 1u << 30);
    if (!nv)
        return nv.error();
    for (uint64_t v = 0; v < *nv; ++v) {
        if (Status s = in.expect("variable"); !s)
            return s.error();
        Variable var;
        auto vname = nameToken(in, "variable name");
        if (!vname)
            return vname.error();
        var.name = *vname;
        auto ns = in.unsignedInt("number of states", 1u << 30);
        if (!ns)
            return ns.error();
        for (uint64_t s = 0; s < *ns; ++s) {
            auto state = nameToken(in, "state name");
            if (!state)
                return state.error();
            var.states.push_back(*state);
        }
        c.variables.push_back(std::move(var));
    }
    if (Status s = in.expect("inputs"); !s)
        return s.error();
    auto ni = in.unsignedInt("number of inputs", 1u << 31);
    if (!ni)
        return ni.error();
    for (uint64_t i = 0; i < *ni; ++i)
        if (Status s = readInput(in, c); !s)
            return s.error();
    if (Status s = in.expect("outputs"); !s)
        return s.error();
    auto no = in.unsignedInt("number of outputs", 1u << 31);
    if (!no)
        return no.error();
    for (uint64_t o = 0; o < *no; ++o) {
        if (Status s = in.expect("output"); !s)
            return s.error();
        auto oname = nameToken(in, "output name");
        if (!oname)
            return oname.error();
        c.outputNames.push_back(*oname);
    }
    m.numOutputs = *no;
    if (!in.atEnd())
        return in.fail("unexpected data after the output names");
    return m;
}

namespace {

// The C ABI of one dlopened model.so. Closing the library ends the engine.
class SharedObjectEngine final : public Engine {
  public:
    using EvalFn = int (*)(const double *, double *, size_t);
    using AdjFn = int (*)(const double *, size_t, double *, size_t);

    SharedObjectEngine(void *lib, EvalFn eval, AdjFn adj, size_t inputs, size_t outputs)
        : lib_(lib), eval_(eval), adj_(adj), inputs_(inputs), outputs_(outputs) {}
    ~SharedObjectEngine() override { dlclose(lib_); }

    Result<std::vector<double>> evaluate(std::span<const double> x, size_t batch) override {
        if (x.size() != batch * inputs_)
            return error("expected " + std::to_string(batch * inputs_) + " input values");
        std::vector<double> out(batch * outputs_);
        if (int rc = eval_(x.data(), out.data(), batch); rc != ZBDD_OK)
            return error("zbdd_eval failed with code " + std::to_string(rc));
        return out;
    }

    Result<std::vector<double>> adjoints(std::span<const double> x, size_t batch,
                                         size_t output) override {
        if (x.size() != batch * inputs_)
            return error("expected " + std::to_string(batch * inputs_) + " input values");
        std::vector<double> adj(batch * inputs_);
        const int rc = adj_(x.data(), output, adj.data(), batch);
        if (rc == ZBDD_ENOBACKWARD)
            return error("this model.so was compiled without the adjoint pass");
        if (rc != ZBDD_OK)
            return error("zbdd_adjoints failed with code " + std::to_string(rc));
        return adj;
    }

  private:
    void *lib_;
    EvalFn eval_;
    AdjFn adj_;
    size_t inputs_, outputs_;
};

template <typename Fn> Fn symbol(void *lib, const char *name) {
    return reinterpret_cast<Fn>(dlsym(lib, name));
}

} // namespace

Result<SharedModel> loadSharedModel(const std::string &path) {
    // A path without a slash would make dlopen search the library path instead of the file.
    const std::string where = path.find('/') == std::string::npos ? "./" + path : path;
    void *lib = dlopen(where.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        return errorAt(path, 0, std::string("cannot load model: ") + (why ? why : "dlopen failed"));
    }
    auto abi = symbol<int (*)(void)>(lib, "zbdd_abi_version");
    auto inputs = symbol<size_t (*)(void)>(lib, "zbdd_num_inputs");
    auto outputs = symbol<size_t (*)(void)>(lib, "zbdd_num_outputs");
    auto eval = symbol<SharedObjectEngine::EvalFn>(lib, "zbdd_eval");
    auto adj = symbol<SharedObjectEngine::AdjFn>(lib, "zbdd_adjoints");
    auto meta = symbol<const char *(*)(void)>(lib, "zbdd_metadata");
    if (!abi || !inputs || !outputs || !eval || !adj || !meta) {
        dlclose(lib);
        return errorAt(path, 0, "not a zbddc model: the zbdd_* functions of zbdd_model.h are missing");
    }
    if (abi() != ZBDD_ABI_VERSION) {
        const int version = abi();
        dlclose(lib);
        return errorAt(path, 0, "model ABI version " + std::to_string(version) +
                                    " is not the supported " + std::to_string(ZBDD_ABI_VERSION));
    }
    auto metadata = parseModelMetadata(meta(), path + "(metadata)");
    if (!metadata || metadata->interface.numInputs() != inputs() ||
        metadata->numOutputs != outputs()) {
        dlclose(lib);
        if (!metadata)
            return metadata.error();
        return errorAt(path, 0, "metadata disagrees with zbdd_num_inputs/zbdd_num_outputs");
    }
    SharedModel m;
    m.engine.reset(new SharedObjectEngine(lib, eval, adj, inputs(), outputs()));
    m.metadata = std::move(*metadata);
    return m;
}

} // namespace zbddc
