#include "runtime/shared_objects/shared_object_check.h"
#include "ir/file_io.h"
#include "ir/text_lines.h"
#include "support/shared_object_seal.h"

#include <cstring>
#include <elf.h>

namespace zbddc {

namespace {

bool inside(uint64_t offset, uint64_t length, uint64_t size) {
    return offset <= size && length <= size - offset;
}

#if defined(__x86_64__)
constexpr uint16_t kMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kMachine = EM_AARCH64;
#else
constexpr uint16_t kMachine = EM_NONE; // not checked
#endif

} // namespace

Status checkSharedObjectImage(std::string_view bytes) {
    const uint64_t size = bytes.size();
    if (size < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0)
        return error("not a shared object (no ELF header)");
    if (size < sizeof(Elf64_Ehdr))
        return error("truncated: " + std::to_string(size) + " bytes, shorter than an ELF header");
    Elf64_Ehdr eh;
    std::memcpy(&eh, bytes.data(), sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return error("not a 64-bit little-endian shared object");
    if (eh.e_type != ET_DYN)
        return error("an ELF file, but not a shared object");
    if (kMachine != EM_NONE && eh.e_machine != kMachine)
        return error("a shared object for another architecture (ELF machine " +
                     std::to_string(eh.e_machine) + ")");
    if (eh.e_phentsize != sizeof(Elf64_Phdr) ||
        !inside(eh.e_phoff, uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr), size))
        return error("truncated: the program headers end past the file's " +
                     std::to_string(size) + " bytes");
    for (uint16_t i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        std::memcpy(&ph, bytes.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
        if ((ph.p_type == PT_LOAD || ph.p_type == PT_DYNAMIC) &&
            !inside(ph.p_offset, ph.p_filesz, size))
            return error("truncated: segment " + std::to_string(i) + " ends at byte " +
                         std::to_string(ph.p_offset + ph.p_filesz) + ", past the file's " +
                         std::to_string(size));
    }
    if (eh.e_shoff != 0 &&
        (eh.e_shentsize != sizeof(Elf64_Shdr) ||
         !inside(eh.e_shoff, uint64_t{eh.e_shnum} * sizeof(Elf64_Shdr), size)))
        return error("truncated: the section headers end past the file's " +
                     std::to_string(size) + " bytes");
    return Ok{};
}

namespace {

// The .zbddc section's text (to its first NUL) and where it starts in the file; {"", 0} where the
// file has no such section. The image passed checkSharedObjectImage.
std::pair<std::string_view, size_t> markerSection(std::string_view bytes) {
    Elf64_Ehdr eh;
    std::memcpy(&eh, bytes.data(), sizeof eh);
    if (eh.e_shoff == 0 || eh.e_shstrndx >= eh.e_shnum)
        return {};
    auto section = [&](uint16_t i) {
        Elf64_Shdr sh;
        std::memcpy(&sh, bytes.data() + eh.e_shoff + uint64_t{i} * sizeof sh, sizeof sh);
        return sh;
    };
    const Elf64_Shdr names = section(eh.e_shstrndx);
    if (!inside(names.sh_offset, names.sh_size, bytes.size()))
        return {};
    const std::string_view table = bytes.substr(names.sh_offset, names.sh_size);
    for (uint16_t i = 0; i < eh.e_shnum; ++i) {
        const Elf64_Shdr sh = section(i);
        if (sh.sh_name >= table.size() || sh.sh_type == SHT_NOBITS)
            continue;
        const std::string_view name = table.substr(sh.sh_name, table.find('\0', sh.sh_name) - sh.sh_name);
        if (name != ".zbddc" || !inside(sh.sh_offset, sh.sh_size, bytes.size()))
            continue;
        const std::string_view text = bytes.substr(sh.sh_offset, sh.sh_size);
        return {text.substr(0, text.find('\0')), sh.sh_offset};
    }
    return {};
}

bool hexDigits(std::string_view text) {
    return text.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

} // namespace

std::string zbddcMarker(std::string_view bytes) {
    return std::string(markerSection(bytes).first);
}

Status checkSharedObjectSeal(std::string_view bytes) {
    const auto [marker, offset] = markerSection(bytes);
    const size_t tag = marker.find(kSealTag);
    if (tag == std::string_view::npos)
        return error("carries no digest (written by an older zbddc? write it again)");
    const std::string_view digest = marker.substr(tag + kSealTag.size());
    if (digest.size() != kSealDigits || !hexDigits(digest))
        return error("damaged: its digest field is not 64 hex digits");
    if (digest == std::string(kSealDigits, '0'))
        return Ok{}; // built by hand from --emit=c: not sealed, and not checked (docs/c-api.md)
    const size_t field = offset + tag + kSealTag.size();
    if (sealDigest(bytes, field) != digest)
        return error("damaged: its contents do not match the digest zbddc sealed it with (the "
                     "file changed after it was written); write it again");
    return Ok{};
}

namespace {

Result<std::string> readWhole(const std::string &path) {
    return readInputFile(path, kSharedObjectLimit, FileContent::Binary);
}

} // namespace

Result<SharedObjectMarker> checkSharedObjectFile(const std::string &path, std::string_view kind) {
    auto bytes = readWhole(path);
    if (!bytes)
        return bytes.error();
    if (Status s = checkSharedObjectImage(*bytes); !s)
        return errorAt(path, 0, s.error().message);
    const std::string text = zbddcMarker(*bytes);
    if (text.empty())
        return errorAt(path, 0, "not a " + std::string(kind) + " written by zbddc (no .zbddc "
                                "section); zbddc does not load it, since loading a .so runs its code");
    SharedObjectMarker marker = parseMarker(text);
    if (marker.kind.empty())
        return errorAt(path, 0, "damaged: its .zbddc marker is not 'zbddc KIND abi N'");
    if (marker.kind != kind)
        return errorAt(path, 0, "a " + marker.kind + " written by zbddc, not a " +
                                    std::string(kind));
    if (Status s = checkSharedObjectSeal(*bytes); !s)
        return errorAt(path, 0, s.error().message);
    return marker;
}

std::string sharedObjectKind(const std::string &path) {
    auto bytes = readWhole(path);
    if (!bytes || !checkSharedObjectImage(*bytes))
        return {};
    return parseMarker(zbddcMarker(*bytes)).kind;
}

SharedObjectMarker parseMarker(std::string_view marker) {
    TokenCursor in(marker, "marker", '\0');
    auto kind = in.expect("zbddc") ? in.token("kind") : Result<std::string_view>(error(""));
    if (!kind || !in.expect("abi"))
        return {};
    auto abi = in.unsignedInt("ABI version", 1u << 20);
    if (!abi || *abi == 0)
        return {};
    return {std::string(*kind), static_cast<unsigned>(*abi)};
}

} // namespace zbddc
