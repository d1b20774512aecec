#include "ir/file_io.h"
#include "support/cleanup_on_signal.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <ext/stdio_filebuf.h>
#include <mutex>
#include <ostream>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace zbddc {

Diagnostic fileError(const std::string &path, std::string_view what, int err) {
    return errorAt(path, 0,
                   std::string(what) + (err ? std::string(": ") + std::strerror(err) : ""));
}

namespace {

// The inputs this process has read, by device and inode (a handful per run).
struct InputFiles {
    std::mutex lock;
    std::vector<std::pair<std::pair<dev_t, ino_t>, std::string>> files;
};
InputFiles &inputFiles() {
    static InputFiles files;
    return files;
}

void noteInput(const struct stat &st, const std::string &path) {
    InputFiles &in = inputFiles();
    const std::lock_guard<std::mutex> held(in.lock);
    in.files.push_back({{st.st_dev, st.st_ino}, path});
}

const std::string *inputWith(const struct stat &st) {
    InputFiles &in = inputFiles();
    const std::lock_guard<std::mutex> held(in.lock);
    for (const auto &[id, path] : in.files)
        if (id.first == st.st_dev && id.second == st.st_ino)
            return &path;
    return nullptr;
}

std::string limitText(uint64_t bytes) {
    return bytes >= (uint64_t{1} << 30) ? std::to_string(bytes >> 30) + " GiB"
                                        : std::to_string(bytes >> 20) + " MiB";
}

// Bytes no text format of ours holds: NUL and the C0 controls other than blanks, and DEL.
bool binaryByte(unsigned char ch) {
    return (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\v' && ch != '\f' && ch != '\r') ||
           ch == 0x7f;
}

struct FileDescriptor {
    int fd;
    ~FileDescriptor() {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

Result<std::string> readInputFile(const std::string &path, uint64_t limit, FileContent content) {
    FileDescriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (file.fd < 0)
        return fileError(path, "cannot read file", errno);
    struct stat st {};
    if (::fstat(file.fd, &st) != 0)
        return fileError(path, "cannot read file", errno);
    if (S_ISDIR(st.st_mode))
        return errorAt(path, 0, "is a directory, not a file");
    if (S_ISCHR(st.st_mode) && !::isatty(file.fd))
        return errorAt(path, 0, "is a character device, not a file (it may never end)");
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode))
        return errorAt(path, 0, "is not a regular file, a pipe or a terminal");
    if (S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > limit)
        return errorAt(path, 0,
                       "is " + std::to_string(st.st_size) + " bytes, more than the " +
                           limitText(limit) + " such a file may hold");
    noteInput(st, path);
    std::string bytes;
    if (S_ISREG(st.st_mode))
        bytes.reserve(static_cast<size_t>(st.st_size));
    size_t line = 1;
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(file.fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fileError(path, "cannot read file", errno);
        if (n == 0)
            break;
        if (bytes.size() + static_cast<size_t>(n) > limit) // a file that grew, or a pipe
            return errorAt(path, 0,
                           "holds more than the " + limitText(limit) + " such a file may hold");
        if (content == FileContent::Text) {
            const char *begin = buffer, *end = buffer + n;
            const char *bad = std::find_if(
                begin, end, [](char c) { return binaryByte(static_cast<unsigned char>(c)); });
            line += static_cast<size_t>(std::count(begin, bad, '\n'));
            if (bad != end)
                return errorAt(path, line, "binary data where text was expected");
        }
        bytes.append(buffer, static_cast<size_t>(n));
    }
    if (content == FileContent::Text && bytes.rfind("\xEF\xBB\xBF", 0) == 0)
        bytes.erase(0, 3); // a UTF-8 byte order mark some editors write
    return bytes;
}

namespace {

// `path` with every symbolic link of its last component followed (at most 40, as the kernel).
Result<std::string> followLinks(std::string path) {
    for (int hops = 0; hops < 40; ++hops) {
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            return path;
        std::vector<char> target(static_cast<size_t>(st.st_size > 0 ? st.st_size : PATH_MAX) + 1);
        const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
        if (n < 0)
            return fileError(path, "cannot follow the symbolic link", errno);
        std::string next(target.data(), static_cast<size_t>(n));
        if (next.empty() || next[0] != '/') {
            const size_t slash = path.rfind('/');
            next = (slash == std::string::npos ? "" : path.substr(0, slash + 1)) + next;
        }
        path = std::move(next);
    }
    return fileError(path, "cannot follow the symbolic link", ELOOP);
}

} // namespace

Result<OutputTarget> resolveOutputTarget(const std::string &path, bool inPlaceAllowed) {
    auto resolved = followLinks(path);
    if (!resolved)
        return resolved.error();
    OutputTarget target{*resolved, false};
    struct stat st {};
    if (::stat(target.path.c_str(), &st) != 0) {
        if (errno == ENOENT)
            return target; // a new file (a missing folder is reported when it is written)
        return fileError(path, "cannot write file", errno);
    }
    if (const std::string *input = inputWith(st))
        return errorAt(path, 0,
                       "is the input " + *input +
                           " (the same file); writing it would destroy the input");
    if (S_ISREG(st.st_mode))
        return target;
    if (S_ISDIR(st.st_mode))
        return errorAt(path, 0, "is a directory, not a file");
    const bool stream = S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode);
    if (stream && inPlaceAllowed) {
        target.inPlace = true;
        return target;
    }
    return errorAt(path, 0,
                   std::string(S_ISFIFO(st.st_mode)  ? "is a FIFO"
                               : S_ISCHR(st.st_mode) ? "is a character device"
                               : S_ISBLK(st.st_mode) ? "is a block device"
                                                     : "is a socket") +
                       ", not a regular file; zbddc does not replace it" +
                       (stream ? " (this output is written only to regular files)" : ""));
}

namespace {

// Writes through `fd` (closed here); false with errno set where a write or the close failed.
bool writeThrough(int fd, const std::function<bool(std::ostream &)> &write) {
    bool written = false;
    {
        __gnu_cxx::stdio_filebuf<char> buffer(fd, std::ios::out | std::ios::binary);
        std::ostream out(&buffer);
        errno = 0;
        written = write(out) && out.flush();
        const int err = errno;
        buffer.close();
        errno = err;
    }
    return written;
}

Status renameIntoPlace(const std::string &temporary, const OutputTarget &target,
                       const std::string &path, const std::function<Status(const std::string &)> &produce) {
    CleanupOnSignal onSignal(temporary, CleanupOnSignal::Kind::File);
    Status made = produce(temporary);
    if (made && ::rename(temporary.c_str(), target.path.c_str()) != 0)
        made = fileError(path, "cannot write file", errno);
    if (!made)
        ::unlink(temporary.c_str());
    return made;
}

} // namespace

Status replaceFileAtomically(const std::string &path,
                             const std::function<Status(const std::string &)> &produce) {
    auto target = resolveOutputTarget(path, false);
    if (!target)
        return target.error();
    return renameIntoPlace(target->path + ".tmp." + std::to_string(::getpid()), *target, path,
                           produce);
}

Status writeFileAtomically(const std::string &path,
                           const std::function<bool(std::ostream &)> &write) {
    auto target = resolveOutputTarget(path, true);
    if (!target)
        return target.error();
    if (target->inPlace) { // a FIFO or device, written as stdout would be
        const int fd = ::open(target->path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0 || !writeThrough(fd, write))
            return fileError(path, "cannot write file", errno);
        return Ok{};
    }
    return renameIntoPlace(
        target->path + ".tmp." + std::to_string(::getpid()), *target, path,
        [&](const std::string &temporary) -> Status {
            const int fd = ::open(temporary.c_str(),
                                  O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
            if (fd < 0 || !writeThrough(fd, write))
                return fileError(path, "cannot write file", errno);
            return Ok{};
        });
}

std::string temporaryFolder() {
    const char *dir = std::getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

std::string userCacheFolder() {
    if (const char *h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.cache/zbddc";
    return temporaryFolder() + "/zbddc-cache";
}

} // namespace zbddc
