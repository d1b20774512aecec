/* Loads a model.so written by zbddc and evaluates it: reads rows of num_inputs numbers from
 * stdin (one sample per row), prints each sample's outputs on one line. Needs only libc, libdl
 * and open_library.h beside it:   cc eval_model.c -o eval_model -ldl
 *          ./eval_model model.so < inputs.txt
 * With --metadata, prints the model's metadata text instead. */
#include "open_library.h"
#include "zbdd_model.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    void *lib = open_library(argc, argv, "model.so [--metadata] < inputs");
    size_t (*num_inputs)(void) = (size_t(*)(void))dlsym(lib, "zbdd_num_inputs");
    size_t (*num_outputs)(void) = (size_t(*)(void))dlsym(lib, "zbdd_num_outputs");
    int (*eval)(const double *, double *, size_t) =
        (int (*)(const double *, double *, size_t))dlsym(lib, "zbdd_eval");
    const char *(*metadata)(void) = (const char *(*)(void))dlsym(lib, "zbdd_metadata");
    if (!num_inputs || !num_outputs || !eval || !metadata) {
        fprintf(stderr, "%s: not a zbddc model (missing zbdd_* symbols)\n", argv[1]);
        return 1;
    }
    if (argc > 2 && strcmp(argv[2], "--metadata") == 0) {
        fputs(metadata(), stdout);
        return 0;
    }

    const size_t n = num_inputs(), m = num_outputs();
    size_t batch = 0, capacity = 16;
    double *x = malloc(capacity * (n ? n : 1) * sizeof(double));
    for (;;) {
        if (batch == capacity) {
            capacity *= 2;
            x = realloc(x, capacity * (n ? n : 1) * sizeof(double));
        }
        size_t i = 0;
        while (i < n && scanf("%lf", &x[batch * n + i]) == 1)
            ++i;
        if (i == 0 && n > 0)
            break;
        if (i < n) {
            fprintf(stderr, "stdin: sample %zu has %zu of %zu inputs\n", batch + 1, i, n);
            return 1;
        }
        ++batch;
        if (n == 0)
            break;
    }
    double *out = malloc((batch * m + 1) * sizeof(double));
    const int rc = eval(x, out, batch); /* the whole batch at once: split over all cores */
    if (rc != ZBDD_OK) {
        fprintf(stderr, "zbdd_eval failed with code %d\n", rc);
        return 1;
    }
    for (size_t s = 0; s < batch; ++s)
        for (size_t o = 0; o < m; ++o)
            printf("%.17g%c", out[s * m + o], o + 1 == m ? '\n' : ' ');
    free(x);
    free(out);
    dlclose(lib);
    return 0;
}
