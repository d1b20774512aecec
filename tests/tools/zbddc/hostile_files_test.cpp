// Files that are not what they seem, given to zbddc as outputs and inputs: a device node, a FIFO
// or a symbolic link as -o (once replaced by a regular file), an output that is the input (once
// overwritten), inputs that never end (/dev/zero read whole until memory ran out), and .so files
// damaged by a byte (once a crash inside dlopen). Device nodes are made here with mknod (a null
// device of our own in the scratch folder), never the system's /dev/null.
#include "tests/catch.hpp"
#include "tests/support/run_zbddc.h"
#include "tests/tools/zbddc/hostile_check.h"

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace zbddc::testing;
namespace fs = std::filesystem;

namespace {

// A fresh folder for one case, with the two-variable network in it as n.bif.
std::string caseDir(const std::string &name) {
    const std::string dir = scratchDir() + "/files-" + name;
    fs::remove_all(dir);
    fs::create_directories(dir + "/tmp");
    std::ofstream(dir + "/n.bif") << kTwoVariables;
    return dir;
}

// zbddc ARGS run in `dir` with TMPDIR inside it.
Outcome runIn(const std::string &dir, const std::string &args) {
    return runProgram("cd '" + dir + "' && TMPDIR='" + dir + "/tmp' " + ZBDDC_EXE + " " + args);
}

bool isCharDevice(const std::string &path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// A null device node of our own (character device 1:3); false where mknod is not permitted.
bool makeNullDevice(const std::string &path) {
    return ::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;
}

// The last line of stderr (a route note may come before the error).
std::string lastLine(const Outcome &r) {
    const std::string err = r.err.substr(0, r.err.find_last_not_of('\n') + 1);
    return err.substr(err.find_last_of('\n') + 1);
}

// Flips the bits of `mask` in byte `at` of `path`.
void flipByte(const std::string &path, size_t at, unsigned char mask) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(at));
    char byte = 0;
    f.get(byte);
    f.seekp(static_cast<std::streamoff>(at));
    f.put(static_cast<char>(byte ^ mask));
}

} // namespace

TEST_CASE("-o onto a device node writes through it and leaves the node", "[cli][hostile]") {
    const std::string dir = caseDir("device");
    if (!makeNullDevice(dir + "/null")) {
        WARN("mknod is not permitted here: the device cases did not run");
        return;
    }
    const Outcome run = runIn(dir, "run n.bif -o null");
    INFO(run.err);
    CHECK(run.exitCode == 0);
    CHECK(isCharDevice(dir + "/null"));
    REQUIRE(makeNullDevice(dir + "/null.so"));
    const Outcome so = runIn(dir, "n.bif -o null.so");
    CHECK(so.exitCode == 1);
    CHECK(lastLine(so) == "null.so: is a character device, not a regular file; zbddc does not "
                          "replace it (this output is written only to regular files)");
    CHECK(isCharDevice(dir + "/null.so"));
    CHECK(entriesOf(dir) == std::set<std::string>{"n.bif", "null", "null.so", "tmp"});
    CHECK(entriesOf(dir + "/tmp").empty());
}

TEST_CASE("-o onto a FIFO writes into it, and a symbolic link's file is replaced",
          "[cli][hostile]") {
    const std::string dir = caseDir("fifo");
    REQUIRE(::mkfifo((dir + "/fifo").c_str(), 0644) == 0);
    // zbddc blocks opening the FIFO until cat reads it, as a shell redirect would.
    runProgram("cd '" + dir + "' && { timeout 60 " + ZBDDC_EXE +
               " run n.bif --evidence A=a -o fifo & timeout 60 cat fifo > got; wait; }");
    CHECK(slurp(dir + "/got").rfind("PR\n", 0) == 0);
    struct stat st {};
    REQUIRE(::lstat((dir + "/fifo").c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));

    fs::create_directories(dir + "/real");
    fs::create_symlink("real/out.txt", dir + "/link");
    const Outcome linked = runIn(dir, "run n.bif --evidence A=a -o link");
    INFO(linked.err);
    CHECK(linked.exitCode == 0);
    CHECK(fs::is_symlink(dir + "/link"));
    CHECK(slurp(dir + "/real/out.txt") == slurp(dir + "/got"));
    CHECK(entriesOf(dir + "/real") == std::set<std::string>{"out.txt"});
}

TEST_CASE("an output that is an input is refused and the input kept", "[cli][hostile]") {
    const std::string dir = caseDir("same");
    const std::string before = slurp(dir + "/n.bif");
    fs::copy_file(std::string(ZBDDC_SOURCE_DIR) + "/examples/wetgrass.zdd", dir + "/w.zdd");
    const std::string zdd = slurp(dir + "/w.zdd");
    for (const std::string args : {"run n.bif -o n.bif", "run n.bif -o ./n.bif", "w.zdd -o w.zdd",
                                   "run n.bif --evidence e.evid -o e.evid"}) {
        INFO(args);
        std::ofstream(dir + "/e.evid") << "1 0 0\n";
        const Outcome r = runIn(dir, args);
        CHECK(r.exitCode == 1);
        CHECK(lastLine(r).find("(the same file); writing it would destroy the input") !=
              std::string::npos);
        CHECK(slurp(dir + "/n.bif") == before);
        CHECK(slurp(dir + "/w.zdd") == zdd);
        CHECK(slurp(dir + "/e.evid") == "1 0 0\n");
    }
    fs::create_hard_link(dir + "/n.bif", dir + "/hard.bif");
    CHECK(runIn(dir, "run n.bif -o hard.bif").exitCode == 1);
    REQUIRE(runIn(dir, "n.bif -o n.so --route jt").exitCode == 0);
    const Outcome so = runIn(dir, "run n.so -o n.so");
    CHECK(so.exitCode == 1);
    CHECK(runIn(dir, "run n.so").exitCode == 0); // still whole
    CHECK(slurp(dir + "/n.bif") == before);
    CHECK(entriesOf(dir + "/tmp").empty());
}

TEST_CASE("inputs that never end are refused before they are read", "[cli][hostile]") {
    const std::string dir = caseDir("endless");
    fs::create_symlink("/dev/zero", dir + "/zero.bif");
    fs::create_symlink("/dev/urandom", dir + "/random.evid");
    fs::create_symlink("/dev/zero", dir + "/zero.order");
    const Outcome model = runIn(dir, "run zero.bif");
    CHECK(model.exitCode == 1);
    CHECK(lastLine(model) == "zero.bif: is a character device, not a file (it may never end)");
    const Outcome evidence = runIn(dir, "run n.bif --evidence random.evid");
    CHECK(evidence.exitCode == 1);
    CHECK(lastLine(evidence) ==
          "random.evid: is a character device, not a file (it may never end)");
    const Outcome order = runIn(dir, "run n.bif --route jt --order zero.order");
    CHECK(order.exitCode == 1);
    CHECK(lastLine(order) == "zero.order: is a character device, not a file (it may never end)");
    // A pipe is read, as the user meant it.
    const Outcome piped = runProgram("cd '" + dir + "' && printf '1 0 0\\n' | " + ZBDDC_EXE +
                                     " run n.bif --evidence /dev/stdin");
    CHECK(piped.exitCode == 0);
    const Outcome cases = runIn(dir, "sample n.bif --cases 99999999999999");
    CHECK(cases.exitCode == 2);
    CHECK(lastLine(cases).find("is more than the 536870912 cases an .evid batch may hold") !=
          std::string::npos);
}

TEST_CASE("file errors say why the system refused", "[cli][hostile]") {
    const std::string dir = caseDir("reasons");
    const Outcome missing = runIn(dir, "run missing.bif");
    CHECK(lastLine(missing) == "missing.bif: cannot read file: No such file or directory");
    const Outcome folder = runIn(dir, "run n.bif -o nowhere/out.txt");
    CHECK(lastLine(folder) == "nowhere/out.txt: cannot write file: No such file or directory");
    const Outcome tmp = runProgram("cd '" + dir + "' && TMPDIR=/nonexistent " + ZBDDC_EXE +
                                   " n.bif -o n.so --route jt");
    CHECK(tmp.exitCode == 1);
    CHECK(lastLine(tmp) == "n.bif: cannot create a temporary folder in /nonexistent (TMPDIR): No "
                           "such file or directory");
    CHECK(entriesOf(dir) == std::set<std::string>{"n.bif", "tmp"});
}

TEST_CASE("a .so changed by one byte is refused before dlopen", "[cli][hostile]") {
    const std::string dir = caseDir("damaged");
    std::ofstream(dir + "/w.wcsp") << "t 2 2 1 5\n2 2\n2 0 1 0 2\n0 0 1\n1 1 3\n";
    REQUIRE(runIn(dir, "n.bif -o jt.so --route jt").exitCode == 0);
    REQUIRE(runIn(dir, "n.bif -o mlf.so --route mlf").exitCode == 0);
    REQUIRE(runIn(dir, "w.wcsp -o p.so").exitCode == 0);
    // The byte that once crashed dlopen (in the program headers) set to a blank.
    fs::copy_file(dir + "/jt.so", dir + "/b.so");
    {
        std::fstream f(dir + "/b.so", std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(121);
        f.put(' ');
    }
    const Outcome crashed = runIn(dir, "run b.so");
    CHECK(crashed.exitCode == 1);
    CHECK(crashed.err.find('\n') == crashed.err.size() - 1); // one line
    // Bits flipped all over each kind of .so: every one refused in one line, none loaded.
    for (const std::string so : {"jt.so", "mlf.so", "p.so"}) {
        const size_t size = fs::file_size(dir + "/" + so);
        uint64_t state = 12345;
        for (int i = 0; i < 25; ++i) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            const size_t at = (state >> 33) % size;
            const unsigned char mask = static_cast<unsigned char>(1u << ((state >> 20) % 8));
            fs::copy_file(dir + "/" + so, dir + "/flip.so", fs::copy_options::overwrite_existing);
            flipByte(dir + "/flip.so", at, mask);
            const Outcome r =
                runIn(dir, "run flip.so" + std::string(so == "p.so" ? " --task mpe" : ""));
            INFO(so << ": byte " << at << " ^ " << int(mask) << ": " << r.err);
            CHECK(r.exitCode == 1);
            CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
        }
    }
    CHECK(runIn(dir, "run jt.so").exitCode == 0);
    CHECK(runIn(dir, "run mlf.so").exitCode == 0);
    CHECK(runIn(dir, "run p.so --task mpe").exitCode == 0);
}

TEST_CASE("a forged model.so whose metadata is NULL is refused", "[cli][hostile]") {
    const std::string dir = caseDir("forged");
    // The marker of a model.so built by hand (digest unsealed: loaded without the digest check),
    // and every function of zbdd_model.h, with zbdd_metadata returning NULL.
    std::ofstream(dir + "/forged.c")
        << "#include <stddef.h>\n"
           "__attribute__((section(\".zbddc\"), used)) static const char marker[] =\n"
           "    \"zbddc model.so abi 2 sha256 "
        << std::string(64, '0')
        << "\";\n"
           "int zbdd_abi_version(void) { return 2; }\n"
           "size_t zbdd_num_inputs(void) { return 0; }\n"
           "size_t zbdd_num_outputs(void) { return 1; }\n"
           "int zbdd_eval(const double *x, double *o, size_t b) { return 0; }\n"
           "int zbdd_adjoints(const double *x, size_t i, double *a, size_t b) { return 0; }\n"
           "const char *zbdd_metadata(void) { return NULL; }\n";
    REQUIRE(std::system(
                ("cc -shared -fPIC -o '" + dir + "/forged.so' '" + dir + "/forged.c'").c_str()) ==
            0);
    const Outcome r = runIn(dir, "run forged.so");
    CHECK(r.exitCode == 1);
    CHECK(lastLine(r) == "forged.so: its metadata function returned NULL; zbddc does not use it");
}
