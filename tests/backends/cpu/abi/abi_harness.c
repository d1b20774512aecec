/* The model.so C ABI under stress, built with AddressSanitizer + UBSan or ThreadSanitizer
 * (run_abi_tests.sh): every size that cannot be a buffer, misaligned and NULL buffers, bad
 * output indices, per-context and library-wide thread counts, and one handle shared by 8 threads
 * must answer ZBDD_EARG or bit-identical results, never crash; and the network ABI over the same
 * circuit (zbdd_network.h, route mlf). argv[1]: a Bayesian network's model.so (sum-product,
 * float64), so that without evidence output 0 is 1. */
#include "zbdd_model.h"
#include "zbdd_network.h"

#include <math.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "abi_harness.c:%d: check failed: %s\n", __LINE__, #cond);             \
            ++failures;                                                                            \
        }                                                                                          \
    } while (0)

struct api {
    size_t (*num_inputs)(void);
    size_t (*num_outputs)(void);
    int (*eval)(const double *, double *, size_t);
    int (*adjoints)(const double *, size_t, double *, size_t);
    void (*set_threads)(unsigned);
    zbdd_ctx *(*ctx_create)(void);
    void (*ctx_destroy)(zbdd_ctx *);
    void (*ctx_set_threads)(zbdd_ctx *, unsigned);
    int (*ctx_eval)(zbdd_ctx *, const double *, double *, size_t);
    int (*ctx_adjoints)(zbdd_ctx *, const double *, size_t, double *, size_t);
};

static struct api api;
enum { kRows = 4096, kWorkers = 8 };
static double *inputs;    /* kRows x n, no evidence */
static double *reference; /* kRows x m, from one thread */

static void *must(void *lib, const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "abi_harness: %s is missing\n", name);
        exit(1);
    }
    return f;
}

/* One row of inputs without evidence, from the metadata: indicators 1, parameters their values. */
static void fill_row(const char *metadata, double *row, size_t n) {
    const char *line = strstr(metadata, "\ninputs ");
    size_t i = 0;
    for (line = line ? strchr(line + 1, '\n') : NULL; line && i < n; line = strchr(line + 1, '\n')) {
        if (strncmp(line + 1, "parameter ", 10) == 0)
            row[i++] = strtod(line + 11, NULL);
        else if (strncmp(line + 1, "indicator ", 10) == 0)
            row[i++] = 1.0;
        else
            break;
    }
    CHECK(i == n);
}

static void check_sizes(void) {
    const size_t n = api.num_inputs(), m = api.num_outputs();
    double small[64];
    const size_t huge[] = {SIZE_MAX, SIZE_MAX / (8 * n) + 1, SIZE_MAX / 8 + 1, (size_t)1 << 40,
                           (size_t)1 << 33};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; ++i) {
        CHECK(api.eval(inputs, small, huge[i]) == ZBDD_EARG);
        CHECK(api.adjoints(inputs, 0, small, huge[i]) == ZBDD_EARG);
        CHECK(api.ctx_eval(NULL, inputs, small, huge[i]) == ZBDD_EARG);
    }
    CHECK(api.eval(NULL, small, 1) == ZBDD_EARG);
    CHECK(api.eval(inputs, NULL, 1) == ZBDD_EARG);
    CHECK(api.eval(NULL, NULL, 0) == ZBDD_OK);
    CHECK(api.adjoints(inputs, m, small, 1) == ZBDD_EARG);
    CHECK(api.adjoints(inputs, SIZE_MAX, small, 1) == ZBDD_EARG);
    /* Misaligned buffers are refused, not read by accident. */
    char *raw = malloc((n + 1) * sizeof(double));
    memcpy(raw + 1, inputs, n * sizeof(double));
    CHECK(api.eval((const double *)(raw + 1), small, 1) == ZBDD_EARG);
    CHECK(api.eval(inputs, (double *)((char *)small + 4), 1) == ZBDD_EARG);
    CHECK(api.adjoints((const double *)(raw + 1), 0, small, 1) == ZBDD_EARG);
    free(raw);
}

static int same(const double *a, const double *b, size_t count) {
    return memcmp(a, b, count * sizeof(double)) == 0;
}

struct worker {
    zbdd_ctx *ctx;
    double *out;
    int status;
};

static void *run_worker(void *arg) {
    struct worker *w = arg;
    for (int round = 0; round < 4 && w->status == ZBDD_OK; ++round)
        w->status = api.ctx_eval(w->ctx, inputs, w->out, kRows);
    return NULL;
}

static void check_threads(void) {
    const size_t n = api.num_inputs(), m = api.num_outputs();
    double *out = malloc(kRows * m * sizeof(double));
    double *adj = malloc(kRows * n * sizeof(double));
    double *adj1 = malloc(kRows * n * sizeof(double));
    api.set_threads(1);
    CHECK(api.eval(inputs, reference, kRows) == ZBDD_OK);
    CHECK(reference[0] > 1 - 1e-12 && reference[0] < 1 + 1e-12); /* total probability */
    CHECK(api.adjoints(inputs, 0, adj1, kRows) == ZBDD_OK);
    for (unsigned t = 0; t <= 8; t += 2) {
        api.set_threads(t);
        CHECK(api.eval(inputs, out, kRows) == ZBDD_OK && same(out, reference, kRows * m));
        CHECK(api.adjoints(inputs, 0, adj, kRows) == ZBDD_OK && same(adj, adj1, kRows * n));
    }
    /* A context's thread count is its own: the library setting does not reach it. */
    zbdd_ctx *ctx = api.ctx_create();
    CHECK(ctx != NULL);
    api.ctx_set_threads(ctx, 3);
    api.set_threads(1);
    CHECK(api.ctx_eval(ctx, inputs, out, kRows) == ZBDD_OK && same(out, reference, kRows * m));
    CHECK(api.ctx_adjoints(ctx, inputs, 0, adj, kRows) == ZBDD_OK && same(adj, adj1, kRows * n));
    /* One handle, 8 threads at once, each with its own context or the library's (NULL). */
    struct worker workers[kWorkers];
    pthread_t ids[kWorkers];
    for (int w = 0; w < kWorkers; ++w) {
        workers[w].ctx = w % 2 ? api.ctx_create() : NULL;
        if (workers[w].ctx)
            api.ctx_set_threads(workers[w].ctx, (unsigned)w);
        workers[w].out = malloc(kRows * m * sizeof(double));
        workers[w].status = ZBDD_OK;
        CHECK(pthread_create(&ids[w], NULL, run_worker, &workers[w]) == 0);
    }
    for (int w = 0; w < kWorkers; ++w) {
        pthread_join(ids[w], NULL);
        CHECK(workers[w].status == ZBDD_OK && same(workers[w].out, reference, kRows * m));
        api.ctx_destroy(workers[w].ctx);
        free(workers[w].out);
    }
    api.ctx_destroy(ctx);
    api.ctx_destroy(NULL);
    api.ctx_set_threads(NULL, 0); /* NULL: the library's setting */
    free(out);
    free(adj);
    free(adj1);
}

/* The network ABI of the model.so: a batch of cases, each observing the last variable's first
 * state, answers as the circuit does for one case; bad buffers are refused; MPE is not its task. */
static void check_network(void *lib) {
    size_t (*count)(void) = (size_t (*)(void))must(lib, "zbdd_network_num_variables");
    size_t (*width)(void) = (size_t (*)(void))must(lib, "zbdd_network_num_marginals");
    int (*pr)(const int *, size_t, double *, int *) =
        (int (*)(const int *, size_t, double *, int *))must(lib, "zbdd_network_pr");
    int (*mar)(const int *, size_t, double *, double *, int *) =
        (int (*)(const int *, size_t, double *, double *, int *))must(lib, "zbdd_network_mar");
    int (*mpe)(const int *, size_t, int *, double *, int *) =
        (int (*)(const int *, size_t, int *, double *, int *))must(lib, "zbdd_network_mpe");
    const size_t n = count(), w = width(), cases = 1000;
    CHECK(n > 0);
    int *evidence = malloc(cases * n * sizeof(int)), *status = malloc(cases * sizeof(int));
    double *log10 = malloc(cases * sizeof(double)), *m = malloc(cases * w * sizeof(double));
    for (size_t c = 0; c < cases; ++c)
        for (size_t v = 0; v < n; ++v)
            evidence[c * n + v] = v + 1 == n ? 0 : ZBDD_UNOBSERVED;
    CHECK(mar(evidence, cases, m, log10, status) == ZBDD_NETWORK_OK);
    for (size_t c = 0; c < cases; ++c) {
        CHECK(status[c] == ZBDD_CASE_OK);
        CHECK(log10[c] == log10[0] && log10[c] < 0);
        CHECK(memcmp(m + c * w, m, w * sizeof(double)) == 0);
    }
    double sum = 0;
    for (size_t j = 0; j < w; ++j)
        sum += m[j];
    CHECK(fabs(sum - (double)n) < 1e-12); /* every variable's posterior sums to 1 */
    CHECK(pr(NULL, cases, log10, status) == ZBDD_NETWORK_OK && fabs(log10[0]) < 1e-15);
    CHECK(pr(evidence, cases, NULL, status) == ZBDD_NETWORK_EARG);
    CHECK(pr(evidence, cases, (double *)((char *)log10 + 4), status) == ZBDD_NETWORK_EARG);
    CHECK(pr(evidence, SIZE_MAX / 4, log10, status) == ZBDD_NETWORK_EARG);
    CHECK(mar(evidence, cases, NULL, log10, status) == ZBDD_NETWORK_EARG);
    evidence[0] = 99;
    CHECK(pr(evidence, 1, log10, status) == ZBDD_NETWORK_EARG);
    CHECK(mpe(NULL, 1, evidence, log10, status) == ZBDD_NETWORK_ENOTASK);
    free(evidence);
    free(status);
    free(log10);
    free(m);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: abi_harness MODEL.so\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "abi_harness: %s\n", dlerror());
        return 1;
    }
    api.num_inputs = (size_t (*)(void))must(lib, "zbdd_num_inputs");
    api.num_outputs = (size_t (*)(void))must(lib, "zbdd_num_outputs");
    api.eval = (int (*)(const double *, double *, size_t))must(lib, "zbdd_eval");
    api.adjoints = (int (*)(const double *, size_t, double *, size_t))must(lib, "zbdd_adjoints");
    api.set_threads = (void (*)(unsigned))must(lib, "zbdd_set_threads");
    api.ctx_create = (zbdd_ctx * (*)(void)) must(lib, "zbdd_ctx_create");
    api.ctx_destroy = (void (*)(zbdd_ctx *))must(lib, "zbdd_ctx_destroy");
    api.ctx_set_threads = (void (*)(zbdd_ctx *, unsigned))must(lib, "zbdd_ctx_set_threads");
    api.ctx_eval = (int (*)(zbdd_ctx *, const double *, double *, size_t))must(lib, "zbdd_ctx_eval");
    api.ctx_adjoints =
        (int (*)(zbdd_ctx *, const double *, size_t, double *, size_t))must(lib, "zbdd_ctx_adjoints");

    const size_t n = api.num_inputs(), m = api.num_outputs();
    inputs = malloc(kRows * n * sizeof(double));
    reference = malloc(kRows * m * sizeof(double));
    fill_row(((const char *(*)(void))must(lib, "zbdd_metadata"))(), inputs, n);
    for (size_t r = 1; r < kRows; ++r)
        memcpy(inputs + r * n, inputs, n * sizeof(double));
    check_sizes();
    check_threads();
    check_network(lib);
    free(inputs);
    free(reference);
    dlclose(lib);
    if (failures)
        fprintf(stderr, "abi_harness: %d checks failed\n", failures);
    else
        printf("abi_harness: all checks passed\n");
    return failures ? 1 : 0;
}
