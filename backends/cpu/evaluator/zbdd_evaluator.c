#define _DEFAULT_SOURCE /* mincore */
#include "zbdd_evaluator.h"
#include "zbdd_buffer_check.h"

#include <math.h>
#include <stdint.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Work below this many op evaluations runs on the calling thread: a thread costs ~20 us. */
#define ZBDD_MIN_WORK_PER_THREAD 200000.0

struct job {
    const struct zbdd_program *p;
    const double *x;
    double *out; /* eval: outputs; adjoints: input adjoints */
    size_t begin, end, output;
    int adjoints;
    int status;
};

static double semiring_zero(const struct zbdd_program *p) {
    if (p->log_space)
        return -INFINITY;
    switch (p->semiring) {
    case 2: return -INFINITY; /* max-sum */
    case 3: return INFINITY;  /* min-sum */
    default: return 0.0;
    }
}

static void run_job(struct job *j) {
    const struct zbdd_program *p = j->p;
    const size_t n = p->num_inputs;
    const size_t scratch = j->adjoints ? 2 * p->num_values + p->num_outputs : p->num_slots;
    double *xin = malloc((n + scratch + 1) * sizeof(double));
    if (!xin) {
        j->status = ZBDD_ENOMEM;
        return;
    }
    double *mem = xin + n;
    const double zero = semiring_zero(p);
    for (size_t s = j->begin; s < j->end; ++s) {
        const double *row = j->x + s * n;
        if (p->log_space)
            for (size_t i = 0; i < n; ++i)
                xin[i] = log(row[i]);
        const double *in = p->log_space ? xin : row;
        if (!j->adjoints) {
            p->forward(in, mem, j->out + s * p->num_outputs);
            continue;
        }
        double *values = mem, *adj = mem + p->num_values, *outs = adj + p->num_values;
        double *in_adj = j->out + s * n;
        p->forward_all(in, values, outs);
        for (size_t i = 0; i < p->num_values; ++i)
            adj[i] = zero;
        for (size_t i = 0; i < n; ++i)
            in_adj[i] = zero;
        p->seed(adj, in_adj, j->output);
        p->backward(in, values, adj, in_adj);
    }
    free(xin);
    j->status = ZBDD_OK;
}

static void *run_thread(void *arg) {
    run_job((struct job *)arg);
    return NULL;
}

static int valid_buffer(const void *p, size_t rows, size_t width) {
    return zbdd_valid_buffer(p, rows, width, sizeof(double));
}

/* Rows [begin, end) of part t of `parts`: balanced, and with no product that can overflow. */
static size_t part_begin(size_t rows, unsigned t, unsigned parts) {
    const size_t each = rows / parts, extra = rows % parts;
    return each * t + (t < extra ? t : extra);
}

static int run(const struct zbdd_program *p, const double *x, double *out, size_t batch,
               unsigned threads, int adjoints, size_t output) {
    if (!p)
        return ZBDD_EARG;
    const size_t out_width = adjoints ? p->num_inputs : p->num_outputs;
    if (batch && (!valid_buffer(x, batch, p->num_inputs) || !valid_buffer(out, batch, out_width)))
        return ZBDD_EARG;
    /* Rows with nothing to write (adjoints of a model without inputs, eval of one without
     * outputs) would be computed for nothing: a batch of 2^40 of them never returned. */
    if (out_width == 0)
        return ZBDD_OK;
    if (threads == 0) {
        /* sysconf reads /sys (microseconds): once per process. */
        static unsigned online;
        unsigned cores = __atomic_load_n(&online, __ATOMIC_RELAXED);
        if (cores == 0) {
            const long n = sysconf(_SC_NPROCESSORS_ONLN);
            cores = n > 0 ? (unsigned)n : 1;
            __atomic_store_n(&online, cores, __ATOMIC_RELAXED);
        }
        threads = cores;
    }
    const double work = (double)batch * (double)(p->num_values + 1);
    if (work / threads < ZBDD_MIN_WORK_PER_THREAD)
        threads = (unsigned)(work / ZBDD_MIN_WORK_PER_THREAD) + 1;
    if (threads > batch)
        threads = batch ? (unsigned)batch : 1;

    struct job *jobs = calloc(threads, sizeof(struct job));
    pthread_t *ids = calloc(threads, sizeof(pthread_t));
    if (!jobs || !ids) {
        free(jobs);
        free(ids);
        return ZBDD_ENOMEM;
    }
    int status = ZBDD_OK;
    unsigned started = 0;
    for (unsigned t = 0; t < threads; ++t) {
        jobs[t] = (struct job){p, x, out, part_begin(batch, t, threads),
                               part_begin(batch, t + 1, threads), output, adjoints, ZBDD_OK};
        if (t > 0) {
            if (pthread_create(&ids[t], NULL, run_thread, &jobs[t]) != 0) {
                status = ZBDD_ETHREAD;
                break;
            }
            started = t;
        }
    }
    if (status == ZBDD_OK)
        run_job(&jobs[0]);
    for (unsigned t = 1; t <= started; ++t)
        pthread_join(ids[t], NULL);
    for (unsigned t = 0; t < threads && status == ZBDD_OK; ++t)
        status = jobs[t].status;
    free(jobs);
    free(ids);
    return status;
}

int zbdd_run_eval(const struct zbdd_program *p, const double *x, double *out, size_t batch,
                  unsigned threads) {
    return run(p, x, out, batch, threads, 0, 0);
}

int zbdd_run_adjoints(const struct zbdd_program *p, const double *x, size_t output, double *adj,
                      size_t batch, unsigned threads) {
    if (p && (!p->forward_all || !p->backward || !p->seed))
        return ZBDD_ENOBACKWARD;
    if (p && output >= p->num_outputs)
        return ZBDD_EARG;
    return run(p, x, adj, batch, threads, 1, output);
}
