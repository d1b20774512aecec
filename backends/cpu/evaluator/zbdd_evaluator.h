/* The C evaluator shared by the JIT (linked into libzbddc) and every generated model.so
 * (compiled into it by the system C compiler): batching, threads, log-space inputs and the
 * adjoint pass around the generated straight-line functions (backends/cpu/codegen.h). */
#ifndef ZBDD_EVALUATOR_H
#define ZBDD_EVALUATOR_H

#include "zbdd_model.h" /* the ZBDD_* return codes */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct zbdd_program {
    uint64_t num_inputs, num_outputs;
    uint64_t num_slots;  /* forward slot array length */
    uint64_t num_values; /* ops: value and adjoint array length of the backward pass */
    int semiring;        /* 0 sum-product, 1 max-product, 2 max-sum, 3 min-sum */
    int log_space;       /* inputs are taken as logs before the generated code runs */
    void (*forward)(const double *xin, double *slots, double *out);
    void (*forward_all)(const double *xin, double *values, double *out); /* NULL: no backward */
    void (*backward)(const double *xin, const double *values, double *adj, double *in_adj);
    void (*seed)(double *adj, double *in_adj, uint64_t output);
};

/* x: batch x num_inputs row-major (linear values); out: batch x num_outputs. threads 0 = all. */
int zbdd_run_eval(const struct zbdd_program *p, const double *x, double *out, size_t batch,
                  unsigned threads);
/* adj: batch x num_inputs, the adjoint of each input for `output` (logs in log space). */
int zbdd_run_adjoints(const struct zbdd_program *p, const double *x, size_t output, double *adj,
                      size_t batch, unsigned threads);

#ifdef __cplusplus
}
#endif
#endif
