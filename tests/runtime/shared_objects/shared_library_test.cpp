// The one .so loader (runtime/shared_objects/shared_library.h) under each kind's: a .so of one
// kind offered to another kind's loader, a .so whose container header names an ABI version this
// zbddc does not load, and one whose ABI function or metadata header disagrees with its kind, are
// each refused with one line naming the file, before any answer is asked of it.
#include "runtime/shared_objects/network_library.h"
#include "runtime/shared_objects/problem_library.h"
#include "runtime/shared_objects/shared_model.h"
#include "support/shared_object_seal.h"

#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace zbddc;
using zbddc::testing::scratchDir;

namespace {

const std::string kSeeds = std::string(ZBDDC_SOURCE_DIR) + "/tests/fuzz/seeds/";

// A .so written by the zbddc binary from a seed model.
std::string written(const std::string &input, const std::string &name, const std::string &flags) {
    const std::string so = scratchDir() + "/" + name;
    const auto r = testing::runZbddc(kSeeds + input + " -o " + so + " --quiet " + flags);
    INFO(r.err);
    REQUIRE(r.exitCode == 0);
    return so;
}

// The three kinds, each written once.
struct Written {
    std::string model = written("tiny.bif", "kinds-model.so", "--route mlf");
    std::string network = written("tiny.bif", "kinds-network.so", "--route jt");
    std::string problem = written("markov.uai", "kinds-problem.so", "");
};
const Written &kinds() {
    static const Written w;
    return w;
}

// What each loader says of `path`: "" when it loads.
std::string asModel(const std::string &path) {
    auto r = loadSharedModel(path);
    return r ? "" : r.error().str();
}
std::string asNetwork(const std::string &path) {
    auto r = NetworkLibrary::open(path);
    return r ? "" : r.error().str();
}
std::string asProblem(const std::string &path) {
    auto r = ProblemLibrary::open(path);
    return r ? "" : r.error().str();
}

void checkOneLine(const std::string &message, const std::string &path, const std::string &says) {
    INFO(message);
    CHECK(message.rfind(path + ": ", 0) == 0);
    CHECK(message.find('\n') == std::string::npos);
    CHECK(message.find(says) != std::string::npos);
}

std::string slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// `from`'s bytes with the marker text `was` (unique in the file) replaced by `now`, of the same
// length, sealed again as zbddc seals what it writes.
std::string remarked(const std::string &from, const std::string &was, const std::string &now,
                     const std::string &name) {
    std::string bytes = slurp(from);
    const size_t at = bytes.find(was);
    REQUIRE(at != std::string::npos);
    REQUIRE(bytes.find(was, at + 1) == std::string::npos);
    REQUIRE(was.size() == now.size());
    bytes.replace(at, was.size(), now);
    const size_t digest = bytes.find(std::string(kSealTag), at) + kSealTag.size();
    bytes.replace(digest, kSealDigits, sealDigest(bytes, digest));
    const std::string path = scratchDir() + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

// A problem.so built by hand from `body` (C defining every function of zbdd_problem.h but the
// marker), its marker unsealed as --emit=c leaves it.
std::string handBuilt(const std::string &name, const std::string &abi, const std::string &body) {
    const std::string dir = scratchDir(), c = dir + "/" + name + ".c", so = dir + "/" + name;
    std::ofstream(c) << "#include <stddef.h>\n#include <stdint.h>\n"
                        "__attribute__((section(\".zbddc\"), used)) static const char marker[] =\n"
                        "    \"zbddc problem.so abi "
                     << abi << " sha256 " << std::string(kSealDigits, '0') << "\";\n"
                     << "size_t zbdd_problem_num_variables(void) { return 1; }\n"
                        "unsigned zbdd_problem_domain_size(size_t v) { return v ? 0 : 2; }\n"
                        "int zbdd_problem_solve(const int *e, double *c, unsigned *a) { return 0; }\n"
                        "void zbdd_problem_set_threads(unsigned n) {}\n"
                        "double zbdd_problem_assignment_cost(const unsigned *a) { return 0; }\n"
                     << body;
    REQUIRE(std::system(("cc -shared -fPIC -o '" + so + "' '" + c + "'").c_str()) == 0);
    return so;
}

const char *kProblemMetadata = "zbdd-problem 2\\nname p\\ncosts real\\nupper_bound inf\\n"
                               "variables 1\\nvariable 2 x\\n";

} // namespace

TEST_CASE("each kind's .so loads in its own loader and is refused by the others", "[so]") {
    const Written &w = kinds();
    CHECK(asModel(w.model).empty());
    CHECK(asNetwork(w.model).empty()); // a network's MLF: the network functions too
    CHECK(asNetwork(w.network).empty());
    CHECK(asProblem(w.problem).empty());

    checkOneLine(asModel(w.network), w.network, "a network.so written by zbddc, not a model.so");
    checkOneLine(asModel(w.problem), w.problem, "a problem.so written by zbddc, not a model.so");
    checkOneLine(asNetwork(w.problem), w.problem, "a problem.so written by zbddc, not a network.so");
    checkOneLine(asProblem(w.model), w.model, "a model.so written by zbddc, not a problem.so");
    checkOneLine(asProblem(w.network), w.network, "a network.so written by zbddc, not a problem.so");
}

TEST_CASE("a .so whose container header names another ABI version is refused", "[so]") {
    const Written &w = kinds();
    const std::string problem =
        remarked(w.problem, "zbddc problem.so abi 1 ", "zbddc problem.so abi 7 ", "abi7.so");
    checkOneLine(asProblem(problem), problem,
                 "a problem.so of ABI version 7; this zbddc loads version 1 (compile it again)");
    const std::string network =
        remarked(w.network, "zbddc network.so abi 1 ", "zbddc network.so abi 9 ", "abi9.so");
    checkOneLine(asNetwork(network), network,
                 "a network.so of ABI version 9; this zbddc loads version 1 (compile it again)");
    const std::string model =
        remarked(w.model, "zbddc model.so abi 2 ", "zbddc model.so abi 3 ", "model-abi3.so");
    checkOneLine(asModel(model), model,
                 "a model.so of ABI version 3; this zbddc loads version 1 to 2");
    // The same bytes sealed with their own marker load: only the version was refused.
    const std::string same =
        remarked(w.problem, "zbddc problem.so abi 1 ", "zbddc problem.so abi 1 ", "abi1.so");
    CHECK(asProblem(same).empty());
}

TEST_CASE("a .so whose ABI function or metadata disagrees with its header is refused", "[so]") {
    const std::string good = handBuilt(
        "hand-good.so", "1",
        "int zbdd_problem_abi_version(void) { return 1; }\n"
        "const char *zbdd_problem_metadata(void) { return \"" + std::string(kProblemMetadata) +
            "\"; }\n");
    CHECK(asProblem(good).empty()); // the control: built this way, a problem.so loads

    const std::string liar = handBuilt(
        "hand-abi.so", "1",
        "int zbdd_problem_abi_version(void) { return 2; }\n"
        "const char *zbdd_problem_metadata(void) { return \"" + std::string(kProblemMetadata) +
            "\"; }\n");
    checkOneLine(asProblem(liar), liar, "zbdd_problem_abi_version() says 2, its .zbddc marker 1");

    const std::string network = handBuilt(
        "hand-metadata.so", "1",
        "int zbdd_problem_abi_version(void) { return 1; }\n"
        "const char *zbdd_problem_metadata(void) { return \"zbdd-network 1\\nroute jt\\n"
        "variables 0\\n\"; }\n");
    checkOneLine(asProblem(network), network + "(metadata):1", "not the metadata of a problem.so");

    const std::string old = handBuilt(
        "hand-version.so", "1",
        "int zbdd_problem_abi_version(void) { return 1; }\n"
        "const char *zbdd_problem_metadata(void) { return \"zbdd-problem 1\\nname p\\n"
        "variables 1\\nvariable 2 x\\n\"; }\n");
    checkOneLine(asProblem(old), old + "(metadata):1",
                 "problem.so metadata version 1 is not the supported 2 (compile it again)");

    const std::string missing = handBuilt("hand-missing.so", "1",
                                          "int zbdd_problem_abi_version(void) { return 1; }\n");
    checkOneLine(asProblem(missing), missing,
                 "not a problem.so of zbdd_problem.h: zbdd_problem_metadata is missing");
}
