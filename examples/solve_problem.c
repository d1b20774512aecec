/* Solves a problem.so (zbddc PROBLEM.wcsp -o problem.so) through its plain C ABI only:
 *   zbdd_solve_problem ./problem.so [VAR=VALUE ...]
 * prints the UAI MPE block (number of variables, then each variable's value) and `cost N`, as
 * `zbddc run PROBLEM.wcsp --task mpe` does for integer costs. */
#include "open_library.h"
#include "zbdd_problem.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    void *lib = open_library(argc, argv, "PROBLEM.so [VAR=VALUE ...]");
    size_t (*num_variables)(void) = (size_t(*)(void))dlsym(lib, "zbdd_problem_num_variables");
    int (*solve)(const int *, double *, unsigned *) =
        (int (*)(const int *, double *, unsigned *))dlsym(lib, "zbdd_problem_solve");
    if (!num_variables || !solve) {
        fprintf(stderr, "%s: not a zbddc problem\n", argv[1]);
        return 1;
    }
    const size_t n = num_variables();
    int *evidence = malloc((n + 1) * sizeof *evidence);
    unsigned *assignment = malloc((n + 1) * sizeof *assignment);
    for (size_t v = 0; v < n; ++v)
        evidence[v] = ZBDD_PROBLEM_FREE;
    for (int i = 2; i < argc; ++i) {
        unsigned long var;
        int value;
        if (sscanf(argv[i], "%lu=%d", &var, &value) != 2 || var >= n) {
            fprintf(stderr, "bad evidence '%s' (VAR=VALUE, VAR < %zu)\n", argv[i], n);
            return 2;
        }
        evidence[var] = value;
    }
    double cost = 0;
    const int rc = solve(argc > 2 ? evidence : NULL, &cost, assignment);
    if (rc != ZBDD_PROBLEM_OK) {
        fprintf(stderr, "zbdd_problem_solve failed with code %d\n", rc);
        return 1;
    }
    printf("MPE\n%zu", n);
    for (size_t v = 0; v < n; ++v)
        printf(" %u", assignment[v]);
    if (isinf(cost))
        printf("\ncost infeasible\n");
    else
        printf("\ncost %.0f\n", cost);
    free(evidence);
    free(assignment);
    dlclose(lib);
    return 0;
}
