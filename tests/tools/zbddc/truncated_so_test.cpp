// A model.so, problem.so or network.so cut short anywhere fails with one `file: truncated ...` line
// and exit 1: dlopen of such a file used to die with SIGBUS (exit 135) and print nothing. The same
// for files that are not shared objects at all.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"

#include <filesystem>
#include <fstream>

using namespace zbddc::testing;

namespace {

std::string prefixOf(const std::string &path, size_t bytes, const std::string &name) {
    std::ifstream in(path, std::ios::binary);
    std::string data(bytes, '\0');
    in.read(data.data(), static_cast<std::streamsize>(bytes));
    return writeScratch(name, data);
}

void checkTruncations(const std::string &so, const char *args) {
    const size_t size = std::filesystem::file_size(so);
    for (size_t k = 1; k <= 24; ++k) {
        const size_t cut = size * k / 25;
        INFO(so << " cut at " << cut << " of " << size);
        const std::string part = prefixOf(so, cut, "cut.so");
        const auto r = runZbddc("run '" + part + "' " + args);
        CHECK(r.exitCode == 1);
        CHECK(r.err.find(part + ": ") == 0);
        CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    }
}

} // namespace

TEST_CASE("run on a truncated model.so, problem.so or network.so fails with one line",
          "[cli][so][hostile]") {
    const std::string model = scratchDir() + "/wetgrass.so";
    REQUIRE(runZbddc(ZBDDC_SOURCE_DIR "/examples/wetgrass.zdd -o '" + model + "'").exitCode == 0);
    REQUIRE(runZbddc("run '" + model + "' --task pr").exitCode == 0);
    checkTruncations(model, "--task pr");

    const std::string wcsp = writeScratch("tiny.wcsp", "tiny 2 2 1 10\n2 2\n2 0 1 0 1\n1 1 5\n");
    const std::string problem = scratchDir() + "/tiny.so";
    REQUIRE(runZbddc("'" + wcsp + "' -o '" + problem + "'").exitCode == 0);
    REQUIRE(runZbddc("run '" + problem + "'").exitCode == 0);
    checkTruncations(problem, "");

    const std::string bif =
        writeScratch("tiny.bif", "network tiny {}\n"
                                 "variable A { type discrete [ 2 ] { a0, a1 }; }\n"
                                 "variable B { type discrete [ 2 ] { b0, b1 }; }\n"
                                 "probability ( A ) { table 0.3, 0.7; }\n"
                                 "probability ( B | A ) { (a0) 0.9, 0.1; (a1) 0.2, 0.8; }\n");
    const std::string network = scratchDir() + "/tiny-network.so";
    REQUIRE(runZbddc("'" + bif + "' -o '" + network + "' --route jt").exitCode == 0);
    REQUIRE(runZbddc("run '" + network + "' --task mar").exitCode == 0);
    checkTruncations(network, "--task mar");

    const std::string text = writeScratch("text.so", "not an ELF file\n");
    const auto r = runZbddc("run '" + text + "'");
    CHECK(r.exitCode == 1);
    CHECK(r.err == text + ": not a shared object (no ELF header)\n");
}

TEST_CASE("a .so zbddc did not write is refused before any of its code runs", "[cli][so][hostile]") {
    // A library whose constructor would announce itself: dlopen would run it.
    const std::string c = writeScratch("foreign.c", "#include <stdio.h>\n"
                                                    "__attribute__((constructor)) static void hi(void) "
                                                    "{ puts(\"foreign code ran\"); }\n"
                                                    "int zbdd_abi_version(void) { return 2; }\n");
    const std::string so = scratchDir() + "/foreign.so";
    REQUIRE(std::system(("cc -shared -fPIC '" + c + "' -o '" + so + "'").c_str()) == 0);
    const auto r = runZbddc("run '" + so + "'");
    CHECK(r.exitCode == 1);
    CHECK(r.out.find("foreign code ran") == std::string::npos);
    CHECK(r.err.find(so + ": not a model.so written by zbddc (no .zbddc section)") !=
          std::string::npos);
    // A problem.so where a model.so is expected is named as what it is.
    const std::string problem = scratchDir() + "/tiny-problem.so";
    REQUIRE(runZbddc("'" ZBDDC_SOURCE_DIR "/tests/fuzz/seeds/tiny.wcsp' -o '" + problem + "'")
                .exitCode == 0);
    const auto asProblem = runZbddc("run '" + problem + "'");
    CHECK(asProblem.exitCode == 0); // routed by its marker to the problem.so reader
    CHECK(asProblem.out.rfind("MPE\n3 ", 0) == 0);
}
