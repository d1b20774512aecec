#include "runtime/shared_objects/shared_model.h"
#include "runtime/shared_objects/shared_library.h"

#include "zbdd_model.h"

namespace zbddc {

namespace {

// The C ABI of one dlopened model.so; the engine holds the library open.
class SharedObjectEngine final : public Engine {
  public:
    using EvalFn = int (*)(const double *, double *, size_t);
    using AdjFn = int (*)(const double *, size_t, double *, size_t);

    SharedObjectEngine(SharedLibrary lib, EvalFn eval, AdjFn adj, size_t inputs, size_t outputs)
        : lib_(std::move(lib)), eval_(eval), adj_(adj), inputs_(inputs), outputs_(outputs) {}

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
    SharedLibrary lib_;
    EvalFn eval_;
    AdjFn adj_;
    size_t inputs_, outputs_;
};

} // namespace

Result<SharedModel> loadSharedModel(const std::string &path) {
    auto lib = SharedLibrary::open(path, kModelSo);
    if (!lib)
        return lib.error();
    size_t (*inputs)(void), (*outputs)(void);
    SharedObjectEngine::EvalFn eval;
    SharedObjectEngine::AdjFn adj;
    lib->bind(inputs, "zbdd_num_inputs");
    lib->bind(outputs, "zbdd_num_outputs");
    lib->bind(eval, "zbdd_eval");
    lib->bind(adj, "zbdd_adjoints");
    if (Status s = lib->bound(); !s)
        return s.error();
    auto metadata = parseModelMetadata(lib->metadata(), lib->metadataName());
    if (!metadata)
        return metadata.error();
    if (metadata->interface.numInputs() != inputs() ||
        metadata->interface.numOutputs() != outputs())
        return lib->fail("metadata disagrees with zbdd_num_inputs/zbdd_num_outputs");
    SharedModel m;
    m.engine.reset(new SharedObjectEngine(std::move(*lib), eval, adj, inputs(), outputs()));
    m.metadata = std::move(*metadata);
    return m;
}

} // namespace zbddc
