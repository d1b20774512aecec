/* The C ABI of a model.so (zbdd_model.h), over the generated functions and the shared evaluator. */
#include "zbdd_model.h"
#include "zbdd_evaluator.h"

#include <stdlib.h>

#define ZBDD_HIDDEN __attribute__((visibility("hidden")))
#define ZBDD_EXPORT __attribute__((visibility("default")))

/* Emitted by zbddc (backends/cpu/codegen.h). */
ZBDD_HIDDEN extern const uint64_t zbdd_gen_info[8];
ZBDD_HIDDEN extern const char zbdd_gen_metadata[];
ZBDD_HIDDEN void zbdd_gen_forward(const double *, double *, double *);
ZBDD_HIDDEN void zbdd_gen_forward_all(const double *, double *, double *) __attribute__((weak));
ZBDD_HIDDEN void zbdd_gen_backward(const double *, const double *, double *, double *)
    __attribute__((weak));
ZBDD_HIDDEN void zbdd_gen_seed(double *, double *, uint64_t) __attribute__((weak));

/* The marker runtime/shared_objects/shared_object_check.h looks for before it lets zbddc dlopen a file; its
 * digest (support/shared_object_seal.h) is filled in by zbddc after linking. */
#define ZBDD_STR2(x) #x
#define ZBDD_STR(x) ZBDD_STR2(x)
__attribute__((section(".zbddc"), used)) static const char zbdd_marker[] =
    "zbddc model.so abi " ZBDD_STR(
        ZBDD_ABI_VERSION) " sha256 "
                          "0000000000000000000000000000000000000000000000000000000000000000";

static unsigned zbdd_threads;

static struct zbdd_program program(void);

/* For the network ABI (zbdd_so_network.c), inside this library only. */
ZBDD_HIDDEN struct zbdd_program zbdd_so_program(void) {
    return program();
}
ZBDD_HIDDEN unsigned zbdd_so_threads(void) {
    return __atomic_load_n(&zbdd_threads, __ATOMIC_RELAXED);
}
ZBDD_HIDDEN void zbdd_so_set_threads(unsigned threads) {
    __atomic_store_n(&zbdd_threads, threads, __ATOMIC_RELAXED);
}

static struct zbdd_program program(void) {
    struct zbdd_program p = {zbdd_gen_info[1], zbdd_gen_info[2], zbdd_gen_info[3],
                             zbdd_gen_info[4], (int)zbdd_gen_info[5], zbdd_gen_info[6] == 1,
                             zbdd_gen_forward, zbdd_gen_forward_all, zbdd_gen_backward,
                             zbdd_gen_seed};
    return p;
}

ZBDD_EXPORT int zbdd_abi_version(void) { return ZBDD_ABI_VERSION; }
ZBDD_EXPORT size_t zbdd_num_inputs(void) { return (size_t)zbdd_gen_info[1]; }
ZBDD_EXPORT size_t zbdd_num_outputs(void) { return (size_t)zbdd_gen_info[2]; }
ZBDD_EXPORT const char *zbdd_metadata(void) { return zbdd_gen_metadata; }
ZBDD_EXPORT void zbdd_set_threads(unsigned threads) {
    __atomic_store_n(&zbdd_threads, threads, __ATOMIC_RELAXED);
}

struct zbdd_ctx {
    unsigned threads;
};

/* The library's settings stand in for a NULL context. */
static unsigned *threads_of(zbdd_ctx *ctx) { return ctx ? &ctx->threads : &zbdd_threads; }

ZBDD_EXPORT zbdd_ctx *zbdd_ctx_create(void) { return calloc(1, sizeof(zbdd_ctx)); }
ZBDD_EXPORT void zbdd_ctx_destroy(zbdd_ctx *ctx) { free(ctx); }
ZBDD_EXPORT void zbdd_ctx_set_threads(zbdd_ctx *ctx, unsigned threads) {
    __atomic_store_n(threads_of(ctx), threads, __ATOMIC_RELAXED);
}

/* Exported functions call only static ones: a call to an exported name could bind to another
 * model's function of the same name when several are loaded into one program. */
static int eval_with(zbdd_ctx *ctx, const double *x, double *out, size_t batch) {
    const struct zbdd_program p = program();
    return zbdd_run_eval(&p, x, out, batch, __atomic_load_n(threads_of(ctx), __ATOMIC_RELAXED));
}

static int adjoints_with(zbdd_ctx *ctx, const double *x, size_t output, double *adj,
                         size_t batch) {
    const struct zbdd_program p = program();
    return zbdd_run_adjoints(&p, x, output, adj, batch,
                             __atomic_load_n(threads_of(ctx), __ATOMIC_RELAXED));
}

ZBDD_EXPORT int zbdd_ctx_eval(zbdd_ctx *ctx, const double *x, double *out, size_t batch) {
    return eval_with(ctx, x, out, batch);
}

ZBDD_EXPORT int zbdd_ctx_adjoints(zbdd_ctx *ctx, const double *x, size_t output, double *adj,
                                  size_t batch) {
    return adjoints_with(ctx, x, output, adj, batch);
}

ZBDD_EXPORT int zbdd_eval(const double *x, double *out, size_t batch) {
    return eval_with(NULL, x, out, batch);
}

ZBDD_EXPORT int zbdd_adjoints(const double *x, size_t output, double *adj, size_t batch) {
    return adjoints_with(NULL, x, output, adj, batch);
}
