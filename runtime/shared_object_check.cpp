#include "runtime/shared_object_check.h"

#include <cstring>
#include <elf.h>
#include <fstream>
#include <sstream>

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

Status checkSharedObjectFile(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return errorAt(path, 0, "cannot open file");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (Status s = checkSharedObjectImage(bytes.view()); !s)
        return errorAt(path, 0, s.error().message);
    return Ok{};
}

} // namespace zbddc
