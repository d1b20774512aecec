/* The plain C ABI of a model.so written by zbddc (docs/c-api.md). Any C program can dlopen a
 * model and evaluate it with no other library. All functions are thread-safe. */
#ifndef ZBDD_MODEL_H
#define ZBDD_MODEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZBDD_ABI_VERSION 1

/* Return codes. */
#define ZBDD_OK 0
#define ZBDD_ENOMEM 1      /* out of memory */
#define ZBDD_EARG 2        /* a NULL pointer with batch > 0, or an output index out of range */
#define ZBDD_ENOBACKWARD 3 /* the model was compiled without the adjoint pass */
#define ZBDD_ETHREAD 4     /* a worker thread could not be started */

int zbdd_abi_version(void);
size_t zbdd_num_inputs(void);
size_t zbdd_num_outputs(void);

/* x: batch x num_inputs, row-major, linear values (log-space models take logs themselves);
 * out: batch x num_outputs (natural logs for log-space models). Returns ZBDD_OK on success. */
int zbdd_eval(const double *x, double *out, size_t batch);

/* The adjoint of every input for output `output` (d out / d x[i] in sum-product; the best
 * completion through x[i] in max/min semirings): adj is batch x num_inputs. */
int zbdd_adjoints(const double *x, size_t output, double *adj, size_t batch);

/* Worker threads for batches (0 = all online cores, the default). */
void zbdd_set_threads(unsigned threads);

/* The model's metadata as text: semiring, numeric mode, variable table, meaning of every input,
 * output names (format in docs/c-api.md). Valid for the library's lifetime. */
const char *zbdd_metadata(void);

#ifdef __cplusplus
}
#endif
#endif
