/* Thread scaling of a compiled model.so's batched evaluation: dlopens the model (plain C ABI,
 * docs/c-api.md), evaluates one batch of random inputs with 1, 2, 4, ... threads up to the
 * machine's cores, and prints the median time of 5 runs, evaluations per second and the speedup
 * over one thread. Needs no LLVM: the .so is self-contained, so this runs on any x86-64 host.
 *   so_thread_scaling MODEL.so [BATCH]                                                        */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef size_t (*count_fn)(void);
typedef int (*eval_fn)(const double *, double *, size_t);
typedef void (*threads_fn)(unsigned);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s MODEL.so [BATCH]\n", argv[0]);
        return 2;
    }
    size_t batch = argc > 2 ? strtoull(argv[2], NULL, 10) : 65536;
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    count_fn num_inputs = (count_fn)dlsym(lib, "zbdd_num_inputs");
    count_fn num_outputs = (count_fn)dlsym(lib, "zbdd_num_outputs");
    eval_fn eval = (eval_fn)dlsym(lib, "zbdd_eval");
    threads_fn set_threads = (threads_fn)dlsym(lib, "zbdd_set_threads");
    if (!num_inputs || !num_outputs || !eval || !set_threads) {
        fprintf(stderr, "%s: not a zbddc model (missing zbdd_* symbols)\n", argv[1]);
        return 1;
    }
    size_t n = num_inputs(), m = num_outputs();
    double *x = malloc(sizeof(double) * n * batch), *out = malloc(sizeof(double) * m * batch);
    if (!x || !out) {
        fprintf(stderr, "out of memory for a batch of %zu\n", batch);
        return 1;
    }
    srand(1);
    for (size_t i = 0; i < n * batch; ++i)
        x[i] = (double)rand() / RAND_MAX;

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    printf("model %s: %zu inputs, %zu outputs, batch %zu, %ld cores\n", argv[1], n, m, batch, cores);
    printf("| threads | median s | evals/s | speedup |\n| ---: | ---: | ---: | ---: |\n");
    double single = 0;
    for (long threads = 1; threads <= cores; threads *= 2) {
        set_threads((unsigned)threads);
        double t[5];
        if (eval(x, out, batch) != 0) { /* warm-up, and the return code checked once */
            fprintf(stderr, "zbdd_eval failed\n");
            return 1;
        }
        for (int r = 0; r < 5; ++r) {
            double start = now();
            eval(x, out, batch);
            t[r] = now() - start;
        }
        qsort(t, 5, sizeof t[0], by_value);
        if (threads == 1)
            single = t[2];
        printf("| %ld | %.4f | %.0f | %.2f |\n", threads, t[2], batch / t[2], single / t[2]);
        if (threads < cores && threads * 2 > cores)
            threads = cores / 2; /* end on the full core count */
    }
    return 0;
}
