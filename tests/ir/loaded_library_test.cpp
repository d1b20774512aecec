// Libraries opened on first use (ir/loaded_library.h): the first candidate that opens wins, a
// missing one says why, a missing function names itself, and the folder of the code running is
// the one this test's executable lies in.
#include "ir/loaded_library.h"

#include "tests/catch.hpp"

#include <cmath>
#include <filesystem>
#include <unistd.h>

using namespace zbddc;

TEST_CASE("the first candidate that opens is taken; none opening says why", "[ir][dlopen]") {
    auto none = loadFirstLibrary({"libzbddc-no-such-library.so", "/no/such/folder/libm.so.6"});
    REQUIRE(!none);
    CHECK(none.error().message.find("libzbddc-no-such-library.so") != std::string::npos);

    auto libm = loadFirstLibrary({"/no/such/folder/libm.so.6", "libm.so.6"});
    REQUIRE(libm);
    CHECK(libm->path == "libm.so.6");
    auto cosine = librarySymbol(*libm, "cos");
    REQUIRE(cosine);
    CHECK(reinterpret_cast<double (*)(double)>(*cosine)(0.0) == 1.0);

    double (*missing)(double) = nullptr;
    std::string why;
    CHECK(!bindFunction(*libm, missing, "zbddc_no_such_function", why));
    CHECK(missing == nullptr);
    CHECK(why == "libm.so.6 lacks zbddc_no_such_function");
}

TEST_CASE("a file that is there but does not load is the reason given", "[ir][dlopen]") {
    const std::string notElf = std::filesystem::temp_directory_path() /
                               ("zbddc-not-a-library-" + std::to_string(::getpid()) + ".so");
    {
        std::FILE *f = std::fopen(notElf.c_str(), "w");
        std::fputs("text", f);
        std::fclose(f);
    }
    auto loaded = loadFirstLibrary({"libzbddc-no-such-library.so", notElf});
    std::filesystem::remove(notElf);
    REQUIRE(!loaded);
    CHECK(loaded.error().message.find(notElf) != std::string::npos);
}

TEST_CASE("the folder holding a function of this program is the executable's", "[ir][dlopen]") {
    std::error_code ec;
    const auto exe = std::filesystem::canonical("/proc/self/exe", ec);
    REQUIRE(!ec);
    CHECK(folderHolding(reinterpret_cast<const void *>(&folderHolding)) ==
          exe.parent_path().string());
    CHECK(folderHolding(nullptr).empty());
}
