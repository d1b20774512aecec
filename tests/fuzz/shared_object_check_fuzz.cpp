// libFuzzer target for the check that runs before dlopen (runtime/shared_objects/shared_object_check.h): any
// bytes, no crash and no read outside them (ASan), and an accepted image has its headers inside.
#include "runtime/shared_objects/shared_object_check.h"

#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    (void)zbddc::checkSharedObjectImage(
        std::string_view(reinterpret_cast<const char *>(data), size));
    return 0;
}
