/* The plain C ABI of a network .so written by zbddc from a Bayesian network (`zbddc NET.bif -o
 * net.so`): PR, MAR and MPE over batches of evidence cases, whichever route compiled it — a
 * junction tree (route jt, a network.so) or the network's MLF circuit (route mlf, a model.so that
 * also exports these functions). docs/c-api.md says how to tell them apart. Any C program can
 * dlopen it; it needs only libc, libm and pthreads. No function aborts or throws; all are
 * thread-safe. */
#ifndef ZBDD_NETWORK_H
#define ZBDD_NETWORK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZBDD_NETWORK_ABI_VERSION 1
#define ZBDD_NETWORK_ABI_STRING "1" /* the same, as text for the .zbddc marker */

/* Return codes of a call. */
#define ZBDD_NETWORK_OK 0
#define ZBDD_NETWORK_ENOMEM 1 /* working tables do not fit in memory */
#define ZBDD_NETWORK_EARG 2   /* a NULL, misaligned or impossible buffer, or a state out of range */
#define ZBDD_NETWORK_ENOTASK 3 /* this .so does not answer that task (route mlf: MPE) */

/* Per-case status (the call itself returned ZBDD_NETWORK_OK). */
#define ZBDD_CASE_OK 0
#define ZBDD_CASE_ZERO 1 /* P(e) = 0: PR answers log10 = -inf; MAR and MPE are undefined */
/* Route mlf compiled with --numeric float64 only: P(e) is 0 or below float64's range (1e-308),
 * which that arithmetic cannot tell apart; treated as ZBDD_CASE_ZERO. A --numeric log .so (and
 * route jt, whose messages are rescaled) never answers it. */
#define ZBDD_CASE_UNDERFLOW 2

/* An evidence entry for a variable that the case leaves unobserved. */
#define ZBDD_UNOBSERVED (-1)

int zbdd_network_abi_version(void);
size_t zbdd_network_num_variables(void);
/* Number of states of variable v (0 when v is out of range). */
unsigned zbdd_network_num_states(size_t v);
/* Sum of every variable's number of states: the width of one case of MAR's `marginals`. */
size_t zbdd_network_num_marginals(void);
/* The metadata text (docs/c-api.md): the route, the variables and their states. */
const char *zbdd_network_metadata(void);
/* Worker threads for a batch (0 = every online core, the default); answers do not depend on it.
 * The setting belongs to the library: every caller in the process shares it. */
void zbdd_network_set_threads(unsigned threads);

/* Every call answers `cases` cases. `evidence`: cases × num_variables ints, row-major, each a
 * state or ZBDD_UNOBSERVED (NULL with any case means no evidence at all). `status`: one per case.
 * With cases == 0 nothing is read or written.
 *
 * PR: log10_pr[c] = log10 P(e_c), -inf where it is 0 (status ZBDD_CASE_ZERO); exact however small
 * P(e) is (messages are rescaled per case). */
int zbdd_network_pr(const int *evidence, size_t cases, double *log10_pr, int *status);
/* MAR: marginals[c × num_marginals + offset(v) + x] = P(v = x | e_c), offset(v) the sum of the
 * states of the variables before v (an observed variable: 1 at its state); log10_pr as PR. Cases
 * with P(e) = 0 have status ZBDD_CASE_ZERO and their marginals are NaN. */
int zbdd_network_mar(const int *evidence, size_t cases, double *marginals, double *log10_pr,
                     int *status);
/* MPE: assignment[c × num_variables + v] = the state of v in a most probable explanation,
 * log10_value[c] = log10 max_x P(x, e_c). P(e) = 0 (ZBDD_CASE_ZERO): value -inf, assignment -1. */
int zbdd_network_mpe(const int *evidence, size_t cases, int *assignment, double *log10_value,
                     int *status);

#ifdef __cplusplus
}
#endif
#endif
