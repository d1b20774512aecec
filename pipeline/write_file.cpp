#include "pipeline/write_file.h"
#include "ir/file_io.h"
#include "support/cleanup_on_signal.h"

#include <cerrno>
#include <ext/stdio_filebuf.h>
#include <fcntl.h>
#include <ostream>
#include <unistd.h>

namespace zbddc::pipeline {

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

} // namespace

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
    const std::string tmp = target->path + ".tmp." + std::to_string(::getpid());
    int fd = -1;
    CleanupOnSignal onSignal;
    {
        const SignalsHeld held; // no signal between creating the file and registering it
        fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (fd >= 0)
            onSignal = CleanupOnSignal(tmp, CleanupOnSignal::Kind::File);
    }
    if (fd < 0)
        return fileError(path, "cannot write file", errno);
    if (!writeThrough(fd, write)) {
        const int err = errno;
        ::unlink(tmp.c_str());
        return fileError(path, "cannot write file", err);
    }
    if (::rename(tmp.c_str(), target->path.c_str()) != 0) {
        const int err = errno;
        ::unlink(tmp.c_str());
        return fileError(path, "cannot write file", err);
    }
    return Ok{};
}

} // namespace zbddc::pipeline
