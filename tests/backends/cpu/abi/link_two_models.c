/* Two model.so and two problem.so linked into one program (not dlopened): with the fixed names
 * alone every call would bind to whichever library the linker saw first; the names given by
 * --symbol-prefix reach each library's own functions (run_abi_tests.sh builds this). */
#include "zbdd_model.h"
#include "zbdd_problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ZBDD_DECLARE_MODEL(wet)
ZBDD_DECLARE_MODEL(tiny)
ZBDD_DECLARE_PROBLEM(p3)
ZBDD_DECLARE_PROBLEM(p4)

static int failures;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "link_two_models.c:%d: check failed: %s\n", __LINE__, #cond);         \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

/* The "inputs N" count of a model's own metadata. */
static size_t metadata_inputs(const char *metadata) {
    const char *line = strstr(metadata, "\ninputs ");
    return line ? (size_t)strtoul(line + 8, NULL, 10) : 0;
}

/* P(no evidence) = 1 through the model's own eval: indicators 1, parameters their values. */
static double total_probability(const char *metadata, size_t n,
                                int (*eval)(const double *, double *, size_t)) {
    double *x = calloc(n, sizeof(double)), out = -1;
    size_t i = 0;
    for (const char *line = strchr(strstr(metadata, "\ninputs ") + 1, '\n'); line && i < n;
         line = strchr(line + 1, '\n'))
        x[i++] = strncmp(line + 1, "parameter ", 10) == 0 ? strtod(line + 11, NULL) : 1.0;
    CHECK(eval(x, &out, 1) == ZBDD_OK);
    free(x);
    return out;
}

static void check_problem(size_t variables, size_t (*num)(void),
                          int (*solve)(const int *, double *, unsigned *),
                          double (*cost_of)(const unsigned *)) {
    CHECK(num() == variables);
    unsigned assignment[16];
    double cost = -1;
    CHECK(solve(NULL, &cost, assignment) == ZBDD_PROBLEM_OK);
    CHECK(cost == cost_of(assignment));
}

int main(void) {
    CHECK(wet_num_inputs() == metadata_inputs(wet_metadata()));
    CHECK(tiny_num_inputs() == metadata_inputs(tiny_metadata()));
    CHECK(wet_num_inputs() != tiny_num_inputs());
    const double pw = total_probability(wet_metadata(), wet_num_inputs(), wet_eval);
    const double pt = total_probability(tiny_metadata(), tiny_num_inputs(), tiny_eval);
    CHECK(pw > 1 - 1e-12 && pw < 1 + 1e-12);
    CHECK(pt > 1 - 1e-12 && pt < 1 + 1e-12);
    CHECK(wet_abi_version() == ZBDD_ABI_VERSION && tiny_abi_version() == ZBDD_ABI_VERSION);
    zbdd_ctx *ctx = tiny_ctx_create();
    CHECK(ctx != NULL);
    tiny_ctx_destroy(ctx);
    check_problem(3, p3_problem_num_variables, p3_problem_solve, p3_problem_assignment_cost);
    check_problem(4, p4_problem_num_variables, p4_problem_solve, p4_problem_assignment_cost);
    if (failures)
        fprintf(stderr, "link_two_models: %d checks failed\n", failures);
    else
        printf("link_two_models: all checks passed\n");
    return failures ? 1 : 0;
}
