/* The plain C ABI of a problem.so written by zbddc from a weighted CSP (.wcsp) or a UAI network
 * (.uai, as MPE): bucket elimination compiled for that one problem, its cost tables embedded
 * (docs/c-api.md). Any C program can dlopen it; it needs only libc, libm and pthreads. Solves are
 * thread-safe: each allocates its own tables. */
#ifndef ZBDD_PROBLEM_H
#define ZBDD_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZBDD_PROBLEM_ABI_VERSION 1
#define ZBDD_PROBLEM_ABI_STRING "1" /* the same, as text for the .zbddc marker */

/* Return codes of zbdd_problem_solve. */
#define ZBDD_PROBLEM_OK 0
#define ZBDD_PROBLEM_ENOMEM 1 /* the message tables do not fit in memory */
#define ZBDD_PROBLEM_EARG                                                                          \
    2 /* a NULL or misaligned buffer, or an evidence value outside its domain */

/* An evidence entry for a variable that is not observed. */
#define ZBDD_PROBLEM_FREE (-1)

int zbdd_problem_abi_version(void);
size_t zbdd_problem_num_variables(void);
/* Domain size of variable v (values 0..size-1); 0 when v is out of range. */
unsigned zbdd_problem_domain_size(size_t v);

/* The optimum and an optimal assignment. `evidence`: NULL, or one entry per variable, a value or
 * ZBDD_PROBLEM_FREE. `*cost`: the least total cost of an assignment consistent with the evidence
 * (a WCSP's integer cost in float64, or -ln of the MPE probability for a UAI network); +infinity
 * when every such assignment reaches the upper bound. `assignment`: num_variables values. */
int zbdd_problem_solve(const int *evidence, double *cost, unsigned *assignment);

/* Worker threads for the large buckets of a solve (0 = every online core, the default); a
 * bucket's rows are shared among them. The answer does not depend on the number. The setting
 * belongs to the library: every caller in the process shares it. */
void zbdd_problem_set_threads(unsigned threads);

/* Total cost of a complete assignment, recomputed from the embedded input tables (+infinity when
 * it reaches the upper bound): the check every answer of zbdd_problem_solve must pass. */
double zbdd_problem_assignment_cost(const unsigned *assignment);

/* The problem's metadata as text (format in docs/c-api.md). Valid for the library's lifetime. */
const char *zbdd_problem_metadata(void);

/* Only in a problem.so whose metadata says `costs int64` (a WCSP whose upper bound exceeds 2^53,
 * solved in 64-bit integers; the double entry points above then round the cost): the exact cost,
 * ZBDD_PROBLEM_INT64_FORBIDDEN where they say +infinity. */
#define ZBDD_PROBLEM_INT64_FORBIDDEN INT64_MAX
int zbdd_problem_solve_int64(const int *evidence, int64_t *cost, unsigned *assignment);
int64_t zbdd_problem_assignment_cost_int64(const unsigned *assignment);

/* The prefixed names of a problem compiled with --symbol-prefix NAME (zbdd_problem_solve as
 * NAME_problem_solve), for linking several problems into one program. */
#define ZBDD_DECLARE_PROBLEM(NAME)                                                                 \
    int NAME##_problem_abi_version(void);                                                          \
    size_t NAME##_problem_num_variables(void);                                                     \
    unsigned NAME##_problem_domain_size(size_t v);                                                 \
    int NAME##_problem_solve(const int *evidence, double *cost, unsigned *assignment);             \
    void NAME##_problem_set_threads(unsigned threads);                                             \
    double NAME##_problem_assignment_cost(const unsigned *assignment);                             \
    const char *NAME##_problem_metadata(void);                                                     \
    int NAME##_problem_solve_int64(const int *evidence, int64_t *cost, unsigned *assignment);      \
    int64_t NAME##_problem_assignment_cost_int64(const unsigned *assignment);

#ifdef __cplusplus
}
#endif
#endif
