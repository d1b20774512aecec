#include "runtime/shared_model.h"
#include "runtime/shared_object_check.h"

#include "zbdd_model.h"

#include <dlfcn.h>

namespace zbddc {

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
    if (Status s = checkSharedObjectFile(path, "model.so"); !s)
        return s.error();
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
    if (abi() < 1 || abi() > ZBDD_ABI_VERSION) { // version 2 only added functions
        const int version = abi();
        dlclose(lib);
        return errorAt(path, 0, "model ABI version " + std::to_string(version) +
                                    " is not one of the supported 1 to " +
                                    std::to_string(ZBDD_ABI_VERSION));
    }
    auto text = sharedObjectMetadata(meta, path);
    if (!text) {
        dlclose(lib);
        return text.error();
    }
    auto metadata = parseModelMetadata(*text, path + "(metadata)");
    if (!metadata || metadata->interface.numInputs() != inputs() ||
        metadata->interface.numOutputs() != outputs()) {
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
