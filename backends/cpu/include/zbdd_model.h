/* The plain C ABI of a model.so written by zbddc (docs/c-api.md). Any C program can dlopen a
 * model and evaluate it with no other library. All functions are thread-safe, and none aborts:
 * a bad argument returns ZBDD_EARG. Buffers must be 8-byte aligned (as malloc and double arrays
 * are). A model compiled with `--symbol-prefix NAME` also exports every function below as
 * NAME_... (zbdd_eval as NAME_eval), so several models can be linked into one program:
 * ZBDD_DECLARE_MODEL(NAME) declares those names. */
#ifndef ZBDD_MODEL_H
#define ZBDD_MODEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZBDD_ABI_VERSION 2 /* 2: zbdd_ctx_*; every version-1 function is unchanged */

/* Return codes. */
#define ZBDD_OK 0
#define ZBDD_ENOMEM 1      /* out of memory */
#define ZBDD_EARG 2 /* a NULL or misaligned buffer with batch > 0 (x may be NULL when the \
                       model has no inputs), a batch whose buffers cannot \
                       exist (byte sizes beyond PTRDIFF_MAX or past the end of the address \
                       space, or, from 64 MiB up, ending in unmapped memory), or an output \
                       index out of range */
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

/* Worker threads for batches of zbdd_eval and zbdd_adjoints (0 = all online cores, the default).
 * This setting belongs to the library, so it is shared by every caller in the process; a
 * caller that wants its own uses a zbdd_ctx. */
void zbdd_set_threads(unsigned threads);

/* A caller's own settings (today: its thread count). Create one per component or thread that
 * wants them; a context may be shared by threads. ctx NULL means the library's settings. */
typedef struct zbdd_ctx zbdd_ctx;
zbdd_ctx *zbdd_ctx_create(void);          /* threads 0 (all online cores); NULL: out of memory */
void zbdd_ctx_destroy(zbdd_ctx *ctx);     /* NULL is ignored */
void zbdd_ctx_set_threads(zbdd_ctx *ctx, unsigned threads); /* NULL: as zbdd_set_threads */
int zbdd_ctx_eval(zbdd_ctx *ctx, const double *x, double *out, size_t batch);
int zbdd_ctx_adjoints(zbdd_ctx *ctx, const double *x, size_t output, double *adj, size_t batch);

/* The model's metadata as text: semiring, numeric mode, variable table, meaning of every input,
 * output names (format in docs/c-api.md). Valid for the library's lifetime. */
const char *zbdd_metadata(void);

/* The prefixed names of a model compiled with --symbol-prefix NAME. */
#define ZBDD_DECLARE_MODEL(NAME)                                                                   \
    int NAME##_abi_version(void);                                                                  \
    size_t NAME##_num_inputs(void);                                                                \
    size_t NAME##_num_outputs(void);                                                               \
    int NAME##_eval(const double *x, double *out, size_t batch);                                   \
    int NAME##_adjoints(const double *x, size_t output, double *adj, size_t batch);                \
    void NAME##_set_threads(unsigned threads);                                                     \
    const char *NAME##_metadata(void);                                                             \
    zbdd_ctx *NAME##_ctx_create(void);                                                             \
    void NAME##_ctx_destroy(zbdd_ctx *ctx);                                                        \
    void NAME##_ctx_set_threads(zbdd_ctx *ctx, unsigned threads);                                  \
    int NAME##_ctx_eval(zbdd_ctx *ctx, const double *x, double *out, size_t batch);                \
    int NAME##_ctx_adjoints(zbdd_ctx *ctx, const double *x, size_t output, double *adj, size_t batch);

#ifdef __cplusplus
}
#endif
#endif
