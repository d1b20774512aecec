/* Buffers of zero width in the C ABIs: a model.so without inputs asked for the adjoints of a
 * batch of 2^40 rows writes nothing and returns at once (it once computed every row, for hours),
 * and a problem.so refuses a misaligned cost pointer as it refuses misaligned evidence.
 * usage: zero_width MODEL_WITHOUT_INPUTS.so PROBLEM.so */
#include "zbdd_model.h"
#include "zbdd_problem.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *symbol(void *lib, const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "zero_width: %s missing\n", name);
        exit(1);
    }
    return f;
}

int main(int argc, char **argv) {
    if (argc != 3)
        return 2;
    alarm(20); /* a hang fails the test instead of stalling CI */
    void *model = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *problem = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    if (!model || !problem) {
        fprintf(stderr, "zero_width: %s\n", dlerror());
        return 1;
    }
    size_t (*inputs)(void) = (size_t(*)(void))symbol(model, "zbdd_num_inputs");
    int (*adjoints)(const double *, size_t, double *, size_t) =
        (int (*)(const double *, size_t, double *, size_t))symbol(model, "zbdd_adjoints");
    int (*eval)(const double *, double *, size_t) =
        (int (*)(const double *, double *, size_t))symbol(model, "zbdd_eval");
    if (inputs() != 0) {
        fprintf(stderr, "zero_width: the model has inputs\n");
        return 1;
    }
    double adj[1];
    const int a = adjoints(NULL, 0, adj, (size_t)1 << 40);
    if (a != ZBDD_OK) {
        fprintf(stderr, "zero_width: zbdd_adjoints over 2^40 empty rows returned %d\n", a);
        return 1;
    }
    double out[1];
    if (eval(NULL, out, (size_t)1 << 40) != ZBDD_EARG) { /* its one output: 8 TB of rows */
        fprintf(stderr, "zero_width: zbdd_eval accepted a 1-row buffer for 2^40 rows\n");
        return 1;
    }
    int (*solve)(const int *, double *, unsigned *) =
        (int (*)(const int *, double *, unsigned *))symbol(problem, "zbdd_problem_solve");
    size_t (*variables)(void) = (size_t(*)(void))symbol(problem, "zbdd_problem_num_variables");
    unsigned *assignment = calloc(variables() + 1, sizeof(unsigned));
    double costs[2];
    double *misaligned = (double *)((char *)costs + 1);
    if (solve(NULL, misaligned, assignment) != ZBDD_PROBLEM_EARG) {
        fprintf(stderr, "zero_width: zbdd_problem_solve accepted a misaligned cost pointer\n");
        return 1;
    }
    if (solve(NULL, &costs[0], assignment) != ZBDD_PROBLEM_OK) {
        fprintf(stderr, "zero_width: zbdd_problem_solve failed on aligned buffers\n");
        return 1;
    }
    free(assignment);
    printf("zero_width: passed\n");
    return 0;
}
