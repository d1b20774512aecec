/* Answers queries on a network .so (zbddc NET.bif -o net.so, either route) through its plain C
 * ABI only:
 *   zbdd_query_network ./net.so [VAR=STATE ...]
 * VAR and STATE are indices. Prints the route, then for the one evidence case `pr LOG10`, one
 * `mar V p0 p1 ...` line per variable, and `mpe LOG10 s0 s1 ...` (or `mpe unsupported` where the
 * .so answers ZBDD_NETWORK_ENOTASK, or `zero` where P(e) = 0). */
#include "open_library.h"
#include "zbdd_network.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SYMBOL(type, name) ((type)dlsym(lib, name))

int main(int argc, char **argv) {
    void *lib = open_library(argc, argv, "NET.so [VAR=STATE ...]");
    size_t (*num_variables)(void) = SYMBOL(size_t(*)(void), "zbdd_network_num_variables");
    unsigned (*num_states)(size_t) = SYMBOL(unsigned (*)(size_t), "zbdd_network_num_states");
    size_t (*num_marginals)(void) = SYMBOL(size_t(*)(void), "zbdd_network_num_marginals");
    const char *(*metadata)(void) = SYMBOL(const char *(*)(void), "zbdd_network_metadata");
    int (*pr)(const int *, size_t, double *, int *) =
        SYMBOL(int (*)(const int *, size_t, double *, int *), "zbdd_network_pr");
    int (*mar)(const int *, size_t, double *, double *, int *) =
        SYMBOL(int (*)(const int *, size_t, double *, double *, int *), "zbdd_network_mar");
    int (*mpe)(const int *, size_t, int *, double *, int *) =
        SYMBOL(int (*)(const int *, size_t, int *, double *, int *), "zbdd_network_mpe");
    if (!num_variables || !num_states || !num_marginals || !metadata || !pr || !mar || !mpe) {
        fprintf(stderr, "%s: not a zbddc network .so\n", argv[1]);
        return 1;
    }
    const char *route = strstr(metadata(), "\nroute ");
    printf("route %.*s\n", route ? (int)strcspn(route + 7, "\n") : 0, route ? route + 7 : "");

    const size_t n = num_variables();
    int *evidence = malloc((n + 1) * sizeof *evidence), *assignment = malloc((n + 1) * sizeof(int));
    double *marginals = malloc((num_marginals() + 1) * sizeof *marginals), log10;
    int status;
    for (size_t v = 0; v < n; ++v)
        evidence[v] = ZBDD_UNOBSERVED;
    for (int i = 2; i < argc; ++i) {
        unsigned long var;
        int state;
        if (sscanf(argv[i], "%lu=%d", &var, &state) != 2 || var >= n || state < 0 ||
            (unsigned)state >= num_states(var)) {
            fprintf(stderr, "bad evidence '%s' (VAR=STATE, VAR < %zu)\n", argv[i], n);
            return 2;
        }
        evidence[var] = state;
    }
    if (pr(evidence, 1, &log10, &status) != ZBDD_NETWORK_OK) {
        fprintf(stderr, "zbdd_network_pr failed\n");
        return 1;
    }
    if (status == ZBDD_CASE_ZERO) {
        printf("zero\n");
        return 0;
    }
    printf("pr %.17g\n", log10);
    if (mar(evidence, 1, marginals, &log10, &status) != ZBDD_NETWORK_OK) {
        fprintf(stderr, "zbdd_network_mar failed\n");
        return 1;
    }
    const double *m = marginals;
    for (size_t v = 0; v < n; ++v) {
        printf("mar %zu", v);
        for (unsigned x = 0; x < num_states(v); ++x)
            printf(" %.17g", *m++);
        printf("\n");
    }
    const int rc = mpe(evidence, 1, assignment, &log10, &status);
    if (rc == ZBDD_NETWORK_ENOTASK) {
        printf("mpe unsupported\n");
    } else if (rc != ZBDD_NETWORK_OK) {
        fprintf(stderr, "zbdd_network_mpe failed\n");
        return 1;
    } else {
        printf("mpe %.17g", log10);
        for (size_t v = 0; v < n; ++v)
            printf(" %d", assignment[v]);
        printf("\n");
    }
    free(evidence);
    free(assignment);
    free(marginals);
    dlclose(lib);
    return 0;
}
