#include "backends/tensor/so/problem_so.h"

#include "backends/cpu/shared_object.h"
#include "ir/file_io.h"
#include "problem_header.inc"

#include <filesystem>

namespace zbddc {

namespace fs = std::filesystem;

const char *problemAbiHeader() { return embedded::kProblemHeader; }

Status writeProblemSource(const TensorProgram &program, const ProblemInfo &info,
                          const std::string &path) {
    auto resolved = resolveOutputTarget(path, false);
    if (!resolved)
        return resolved.error();
    const fs::path target = fs::absolute(resolved->path);
    const fs::path blob = target.string() + ".tables.bin";
    auto source = emitProblemC(program, info, blob.string());
    if (!source)
        return source.error();
    // Each file whole or not at all (ir/file_io.h).
    auto write = [](const fs::path &to, const char *data, size_t size) {
        return replaceFileAtomically(to.string(), [&](const std::string &temporary) {
            return writeBinaryFile(temporary, data, size);
        });
    };
    if (Status s = write(blob, reinterpret_cast<const char *>(source->blob.data()),
                         source->blob.size() * sizeof(double));
        !s)
        return s;
    return write(target, source->c.data(), source->c.size());
}

Result<double> writeProblemSharedObject(const TensorProgram &program, const ProblemInfo &info,
                                        const std::string &path, const ProblemSoOptions &options) {
    TempDir tmp;
    if (Status s = tmp.create("zbddc-problem"); !s)
        return s.error();
    const fs::path blobPath = tmp.path / "tables.bin";
    auto source = emitProblemC(program, info, blobPath.string());
    if (!source)
        return source.error();
    const std::string header = problemAbiHeader();
    if (Status s = writeBinaryFile(blobPath, reinterpret_cast<const char *>(source->blob.data()),
                              source->blob.size() * sizeof(double));
        !s)
        return s.error();
    if (Status s = writeBinaryFile(tmp.path / "zbdd_problem.h", header.data(), header.size()); !s)
        return s.error();
    if (Status s = writeBinaryFile(tmp.path / "problem.c", source->c.data(), source->c.size()); !s)
        return s.error();

    std::vector<std::string> argv{options.compiler, "-shared", "-fPIC", "-fvisibility=hidden"};
    argv.insert(argv.end(), options.flags.begin(), options.flags.end());
    argv.insert(argv.end(), {"-I", tmp.path.string(), (tmp.path / "problem.c").string(), "-lm"});
    if (!options.symbolPrefix.empty()) {
        std::vector<std::string> exports = {
            "zbdd_problem_abi_version", "zbdd_problem_num_variables",
            "zbdd_problem_domain_size", "zbdd_problem_solve",
            "zbdd_problem_set_threads", "zbdd_problem_assignment_cost",
            "zbdd_problem_metadata"};
        if (program.semiring == Semiring::MinSumInt64) // the exact entry points
            exports.insert(exports.end(),
                           {"zbdd_problem_solve_int64", "zbdd_problem_assignment_cost_int64"});
        auto aliases = symbolPrefixFlags(options.symbolPrefix, exports);
        if (!aliases)
            return aliases.error();
        argv.insert(argv.end(), aliases->begin(), aliases->end());
    }
    return compileIntoPlace(std::move(argv), path, (tmp.path / "cc.log").string());
}

} // namespace zbddc
