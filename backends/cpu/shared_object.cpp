#include "backends/cpu/shared_object.h"

#include "backends/cpu/emit_c.h"
#include "evaluator_objects.inc"
#include "ir/file_io.h"
#include "ir/model_interface.h"
#include "support/shared_object_seal.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace zbddc {

namespace {

namespace fs = std::filesystem;

} // namespace

Result<std::vector<std::string>> symbolPrefixFlags(const std::string &prefix,
                                                   const std::vector<std::string> &exports) {
    const bool identifier =
        !prefix.empty() && !std::isdigit(static_cast<unsigned char>(prefix[0])) &&
        std::all_of(prefix.begin(), prefix.end(),
                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (!identifier)
        return error("symbol prefix '" + prefix + "' is not a C identifier");
    std::vector<std::string> flags;
    for (const std::string &name : exports) // --defsym: an exported alias, no wrapper code
        flags.push_back("-Wl,--defsym," + prefix + name.substr(4) + "=" + name);
    return flags;
}

Status TempDir::create(const std::string &prefix) {
    const std::string folder = temporaryFolder();
    std::string pattern = (fs::path(folder) / (prefix + "-XXXXXX")).string();
    const SignalsHeld held; // no signal between creating the folder and registering it
    if (!mkdtemp(pattern.data()))
        return error("cannot create a temporary folder in " + folder +
                     (std::getenv("TMPDIR") ? " (TMPDIR)" : "") + ": " + std::strerror(errno));
    path = pattern;
    onSignal = CleanupOnSignal(path.string(), CleanupOnSignal::Kind::Folder);
    return Ok{};
}

TempDir::~TempDir() {
    std::error_code ignored;
    if (!path.empty())
        fs::remove_all(path, ignored);
}

Status writeBinaryFile(const fs::path &path, const char *data, size_t size) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return fileError(path.string(), "cannot write file", errno);
    for (size_t done = 0; done < size;) {
        const ssize_t n = ::write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int err = n < 0 ? errno : EIO;
            ::close(fd);
            return fileError(path.string(), "cannot write file", err);
        }
        done += static_cast<size_t>(n);
    }
    if (::close(fd) != 0)
        return fileError(path.string(), "cannot write file", errno);
    return Ok{};
}

Status sealSharedObject(const std::string &path) {
    auto bytes = readInputFile(path, kSharedObjectLimit, FileContent::Binary);
    if (!bytes)
        return bytes.error();
    const std::string_view placeholder = ZBDDC_SEAL_PLACEHOLDER;
    const size_t at = bytes->find(placeholder);
    if (at == std::string::npos || bytes->find(placeholder, at + 1) != std::string::npos)
        return errorAt(path, 0,
                       "cannot seal the shared object: its marker's digest field is "
                       "missing or not unique");
    const size_t field = at + kSealTag.size();
    const std::string digest = sealDigest(*bytes, field);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return fileError(path, "cannot seal the shared object", errno);
    const ssize_t n = ::pwrite(fd, digest.data(), digest.size(), static_cast<off_t>(field));
    const int err = n < 0 ? errno : EIO;
    if (::close(fd) != 0 || n != static_cast<ssize_t>(digest.size()))
        return fileError(path, "cannot seal the shared object", err);
    return Ok{};
}

Status runSystemCompiler(const std::vector<std::string> &argv, const std::string &log) {
    std::vector<char *> args;
    for (const std::string &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, 2, 1);
    // The compiler's own temporary files go into our temporary folder (the log's), which is
    // removed on every path out, a fatal signal included (it kills the compiler first).
    const std::string tmpdir = "TMPDIR=" + fs::path(log).parent_path().string();
    std::vector<char *> env;
    for (char **e = environ; *e; ++e)
        if (std::strncmp(*e, "TMPDIR=", 7) != 0)
            env.push_back(*e);
    env.push_back(const_cast<char *>(tmpdir.c_str()));
    env.push_back(nullptr);
    // With zbddc's signal handler installed the compiler leads a process group of its own, which
    // the handler kills whole (cc, collect2, ld) before it removes the temporary file.
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    pid_t pid = 0;
    int rc = 0;
    ChildOnSignal onSignal;
    {
        const SignalsHeld held; // no signal between the spawn and watch()
        short flags = POSIX_SPAWN_SETSIGMASK;
        posix_spawnattr_setsigmask(&attributes, &held.before());
        const bool ownGroup = childNeedsOwnGroup();
        if (ownGroup) {
            flags |= POSIX_SPAWN_SETPGROUP;
            posix_spawnattr_setpgroup(&attributes, 0);
        }
        posix_spawnattr_setflags(&attributes, flags);
        rc = posix_spawnp(&pid, args[0], &actions, &attributes, args.data(), env.data());
        if (rc == 0 && ownGroup)
            onSignal.watch(pid);
    }
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0)
        return error("cannot run " + argv[0] + ": " + std::strerror(rc));
    int status = 0;
    pid_t waited;
    while ((waited = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
    }
    // Not waited for (a signal's handler on another thread reaped it) is no success.
    if (waited == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return Ok{};
    std::ifstream in(log);
    std::string first;
    std::getline(in, first);
    return error(argv[0] + " failed to link the model" + (first.empty() ? "" : ": " + first));
}

Result<double> compileIntoPlace(std::vector<std::string> argv, const std::string &path,
                                const std::string &log) {
    double seconds = 0;
    Status written = replaceFileAtomically(path, [&](const std::string &temporary) -> Status {
        argv.insert(argv.end(), {"-o", temporary});
        const auto t0 = std::chrono::steady_clock::now();
        Status built = runSystemCompiler(argv, log);
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!built)
            return built;
        return sealSharedObject(temporary);
    });
    if (!written)
        return written.error();
    return seconds;
}

Result<double> linkModel(const std::vector<std::string> &inputs, const std::string &path,
                         const SharedObjectOptions &link) {
    TempDir tmp;
    if (Status s = tmp.create("zbddc"); !s)
        return s.error();
    std::vector<std::string> argv{link.compiler, "-shared", "-fPIC", "-fvisibility=hidden"};
    argv.insert(argv.end(), link.flags.begin(), link.flags.end());
    argv.insert(argv.end(), {"-I", tmp.path.string()});
    // The evaluator's headers, for C inputs (--emit=c); the evaluator itself as the objects compiled
    // when zbddc was built (evaluator_objects.inc), so that only the inputs are compiled here.
    for (const auto &[name, text] : evaluatorHeaders())
        if (Status s = writeBinaryFile(tmp.path / name, text.data(), text.size()); !s)
            return s.error();
    for (const embedded::RuntimeObject &object : embedded::kRuntimeObjects) {
        const fs::path file = tmp.path / object.name;
        if (Status s = writeBinaryFile(file, reinterpret_cast<const char *>(object.data), object.size); !s)
            return s.error();
        argv.push_back(file.string());
    }
    argv.insert(argv.end(), inputs.begin(), inputs.end());
    argv.insert(argv.end(), {"-lm", "-lpthread"});
    if (!link.symbolPrefix.empty()) {
        static const std::vector<std::string> exports = {
            "zbdd_abi_version", "zbdd_num_inputs",     "zbdd_num_outputs",     "zbdd_eval",
            "zbdd_adjoints",    "zbdd_set_threads",    "zbdd_metadata",        "zbdd_ctx_create",
            "zbdd_ctx_destroy", "zbdd_ctx_set_threads", "zbdd_ctx_eval",       "zbdd_ctx_adjoints"};
        auto aliases = symbolPrefixFlags(link.symbolPrefix, exports);
        if (!aliases)
            return aliases.error();
        argv.insert(argv.end(), aliases->begin(), aliases->end());
    }
    return compileIntoPlace(std::move(argv), path, (tmp.path / "link.log").string());
}

Result<SharedObjectReport> writeSharedObject(const Circuit &c, const CpuOptions &o,
                                             const std::string &path,
                                             const SharedObjectOptions &link) {
    const Semiring semiring = o.semiring.value_or(c.semiring);
    auto compiled = compileObjects(c, o, writeModelMetadata(c, semiring, o.numeric), true);
    if (!compiled)
        return compiled.error();
    SharedObjectReport report{compiled->times, 0, compiled->objects.size()};

    TempDir tmp;
    if (Status s = tmp.create("zbddc-objects"); !s)
        return s.error();
    std::vector<std::string> inputs;
    for (size_t i = 0; i < compiled->objects.size(); ++i) {
        const std::string &object = compiled->objects[i];
        const fs::path file = tmp.path / ("part" + std::to_string(i) + ".o");
        if (Status s = writeBinaryFile(file, object.data(), object.size()); !s)
            return s.error();
        inputs.push_back(file.string());
    }
    auto seconds = linkModel(inputs, path, link);
    if (!seconds)
        return seconds.error();
    report.link = *seconds;
    return report;
}

} // namespace zbddc
