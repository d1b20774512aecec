// Every file zbddc reads or writes goes through here: one bounded reader for inputs, one place
// that decides what an output path may be, and one error helper that says why the OS refused.
//
// Inputs are read until a size limit the format implies (a link to /dev/zero is not read whole)
// and, for text, until the first binary byte; a character device other than a terminal is refused,
// a pipe (`<(...)`, /dev/stdin) is read as the user meant it. Each input read is remembered by its
// device and inode, so that an output that is the same file is refused instead of destroying it.
#pragma once

#include "ir/result.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace zbddc {

// "path: what: <the OS's reason for err>" (what is e.g. "cannot read file").
Diagnostic fileError(const std::string &path, std::string_view what, int err);

// Size limits, by what the file holds: model texts (the largest benchmark networks are tens of
// MB), evidence batches, elimination orders (a few bytes per variable), shared objects.
inline constexpr uint64_t kModelTextLimit = uint64_t{1} << 30;
inline constexpr uint64_t kEvidenceTextLimit = uint64_t{1} << 30;
inline constexpr uint64_t kOrderTextLimit = uint64_t{64} << 20;
inline constexpr uint64_t kSharedObjectLimit = uint64_t{4} << 30;

enum class FileContent { Text, Binary };

// The file's bytes, at most `limit` of them (more is an error naming the limit). Text stops at
// the first NUL or other control byte that no text format has ("path:line: binary data where text
// was expected") and loses a leading UTF-8 byte order mark.
Result<std::string> readInputFile(const std::string &path, uint64_t limit, FileContent content);

// Where an output goes. A regular file (or a new one) is replaced atomically through a temporary
// file in `path`'s folder, with symbolic links resolved first (so the file a link names is
// replaced, not the link). A FIFO or character device (/dev/null, a terminal) is written in place
// where `inPlaceAllowed`, else refused; a directory or anything else is refused. A file that this
// process read as an input (same device and inode) is refused.
struct OutputTarget {
    std::string path; // symbolic links resolved
    bool inPlace = false;
};
Result<OutputTarget> resolveOutputTarget(const std::string &path, bool inPlaceAllowed);

// Every output file is written whole or not at all: `produce` fills `temporary`, a new name beside
// the target (PATH.tmp.PID, same file system), which is renamed onto the target when `produce`
// succeeds and removed when it fails or a fatal signal arrives (support/cleanup_on_signal.h). The
// target is resolveOutputTarget's (no FIFO or device: `produce` may be another program writing
// its own file, as the C compiler writing a .so).
Status replaceFileAtomically(const std::string &path,
                             const std::function<Status(const std::string &temporary)> &produce);
// The same for a stream of text or bytes; a FIFO or character device is written in place.
Status writeFileAtomically(const std::string &path,
                           const std::function<bool(std::ostream &)> &write);

// The folder temporary files go into ($TMPDIR, else /tmp), without the exception
// std::filesystem::temp_directory_path throws for a TMPDIR that does not exist.
std::string temporaryFolder();
// Where zbddc keeps what it may compute again (NVRTC images, route choices) unless the process's
// settings name a folder (support/gpu_settings.h: ZBDDC_CACHE_DIR, read at the edge):
// ~/.cache/zbddc, else zbddc-cache in the temporary folder.
std::string userCacheFolder();

} // namespace zbddc
