/* Whether a caller's buffer can be what a C ABI call is about to read or write, checked before
 * anything is touched: shared by the model.so evaluator and the network.so driver (both turn a
 * bad buffer into an EARG return code instead of SIGSEGV in generated code). Needs
 * _DEFAULT_SOURCE (mincore) before the first system header. */
#ifndef ZBDD_BUFFER_CHECK_H
#define ZBDD_BUFFER_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Buffers from this size up are probed for their last page: a call costs two system calls there,
 * nothing measurable beside the work, and a batch larger than its buffers fails with EARG
 * instead of SIGSEGV. */
#define ZBDD_PROBE_BYTES ((size_t)64 << 20)

/* Whether `rows` rows of `width` elements of `size` bytes at `p` can be a buffer: aligned to
 * `size`, a byte size that does not overflow or exceed PTRDIFF_MAX (no C object is larger), an
 * end inside the address space, and, for large buffers, a mapped last page. */
static inline int zbdd_valid_buffer(const void *p, size_t rows, size_t width, size_t size) {
    if (width == 0)
        return 1; /* holds nothing, so may be NULL: x of a model without inputs */
    if (!p || ((uintptr_t)p & (size - 1)))
        return 0;
    if (rows > (size_t)PTRDIFF_MAX / size / width)
        return 0;
    const size_t bytes = rows * width * size;
    if (bytes == 0)
        return 1;
    if (bytes - 1 > UINTPTR_MAX - (uintptr_t)p)
        return 0;
#ifdef __linux__
    if (bytes >= ZBDD_PROBE_BYTES) {
        const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
        unsigned char resident;
        const uintptr_t last = ((uintptr_t)p + bytes - 1) & ~(page - 1);
        if (mincore((void *)last, 1, &resident) != 0)
            return 0; /* ENOMEM: not mapped */
    }
#endif
    return 1;
}

#endif
