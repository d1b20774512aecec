/* How the C examples start: `PROGRAM LIBRARY.so ...`, the library opened with dlopen; a usage
 * line (exit 2) without one, dlopen's message (exit 1) where it does not open. */
#ifndef ZBDD_EXAMPLES_OPEN_LIBRARY_H
#define ZBDD_EXAMPLES_OPEN_LIBRARY_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void *open_library(int argc, char **argv, const char *usage) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s %s\n", argv[0], usage);
        exit(2);
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        exit(1);
    }
    return lib;
}

#endif
