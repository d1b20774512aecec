/* The driver of a network.so (route jt): the C ABI of zbdd_network.h over the junction-tree
 * programs that zbddc emits around this file (backends/tensor/so/emit_network_c.h). The C that
 * includes it defines NUM_VARIABLES, NUM_MARGINALS and BATCH (cases per run), the blob
 * zbdd_tables and the metadata first, and after it the two programs `sum_program` (PR, MAR) and
 * `max_program` (MPE).
 *
 * A request is cut into chunks of BATCH cases (the last one padded with cases without evidence,
 * so the program stays the same); threads take chunks, each with its own message tables. Per
 * chunk: fill the evidence indicators λ_X(X, case), run the ops, then read per case P(e) from the
 * root's scaled value and the collect scales (log10, so no case underflows), the marginals, or
 * the MPE by traceback over the max-product collect ops (Dechter 1999's backward pass, as
 * recoverAssignment in ir/tensor_program.h). */
#include "zbdd_buffer_check.h"

struct jt_program {
    const unsigned *domain; /* by variable; the case variable NUM_VARIABLES has BATCH values */
    const unsigned char *table_blob;
    const uint64_t *table_offset, *scope_stride;
    const unsigned *table_first, *scope_var;
    const unsigned *op_first, *op_input, *op_vfirst, *op_var;
    const unsigned char *op_reduces;
    const op_fn *ops; /* specialised C, or 0: generic_op */
    const uint64_t *op_outer, *op_work;
    /* generic_op's view of each op: its axes (output scope, then the eliminated variables) */
    const unsigned char *op_inverse_max;
    const unsigned *op_output, *op_out_axes, *op_axis_first, *op_axis_size, *op_stride_first;
    const uint64_t *op_stride; /* per input, per axis */
    unsigned num_ops, pr_ops;  /* PR runs the first pr_ops ops (collect and the root) */
    uint64_t message_entries;
    const unsigned *evidence_table; /* by variable */
    unsigned normaliser, num_scales;
    const unsigned *scales;         /* the collect messages' InverseMax tables */
    const unsigned *marginal_table; /* by variable (the sum program) */
};

static const struct jt_program sum_program;
static const struct jt_program max_program;

enum { TASK_PR, TASK_MAR, TASK_MPE };

struct request {
    int task;
    const int *evidence; /* NULL: no evidence */
    size_t cases, chunks;
    double *marginals, *log10;
    int *assignment, *status;
    size_t next_chunk, done_chunks; /* atomics */
    unsigned op_threads;            /* threads inside a large op: those no chunk keeps busy */
};

#define CASE_VAR NUM_VARIABLES
#define LN10 2.302585092994045684

/* Entry of table t at assignment a (a[CASE_VAR]: the case within the chunk). */
static double table_value(const struct jt_program *p, const double *msg, unsigned t,
                          const unsigned *a) {
    uint64_t row = 0;
    for (unsigned i = p->table_first[t]; i < p->table_first[t + 1]; ++i)
        row += (uint64_t)a[p->scope_var[i]] * p->scope_stride[i];
    return (p->table_blob[t] ? zbdd_tables : msg)[p->table_offset[t] + row];
}

static double *table_base(const struct jt_program *p, double *msg, unsigned t) {
    return (p->table_blob[t] ? (double *)zbdd_tables : msg) + p->table_offset[t];
}

/* Steps the odometer over axes [lo, hi) (last fastest), moving every input's offset with it. */
static void advance(unsigned *idx, const unsigned *size, const uint64_t *stride, unsigned axes,
                    uint64_t *off, unsigned inputs, unsigned lo, unsigned hi) {
    for (unsigned i = hi; i-- > lo;) {
        for (unsigned j = 0; j < inputs; ++j)
            off[j] += stride[j * axes + i];
        if (++idx[i] < size[i])
            return;
        idx[i] = 0;
        for (unsigned j = 0; j < inputs; ++j)
            off[j] -= stride[j * axes + i] * size[i];
    }
}

/* An op without specialised C (a small one): the same ⊕ of ⊗ over the op's arrays. Output rows
 * in order; per row, every value of the eliminated variables. */
static void generic_op(const struct jt_program *p, double *msg, unsigned o) {
    const unsigned first = p->op_first[o], inputs = p->op_first[o + 1] - first;
    const unsigned axes = p->op_axis_first[o + 1] - p->op_axis_first[o],
                   out_axes = p->op_out_axes[o];
    const unsigned *size = p->op_axis_size + p->op_axis_first[o];
    const uint64_t *stride = p->op_stride + p->op_stride_first[o];
    const double *in[inputs ? inputs : 1];
    uint64_t off[inputs ? inputs : 1];
    unsigned idx[axes ? axes : 1];
    uint64_t rows = 1, inner = 1;
    for (unsigned i = 0; i < axes; ++i) {
        idx[i] = 0;
        *(i < out_axes ? &rows : &inner) *= size[i];
    }
    for (unsigned j = 0; j < inputs; ++j) {
        in[j] = table_base(p, msg, p->op_input[first + j]);
        off[j] = 0;
    }
    const int product_max = p == &max_program || p->op_inverse_max[o];
    double *out = table_base(p, msg, p->op_output[o]);
    for (uint64_t r = 0; r < rows; ++r) {
        double acc = 0.0;
        for (uint64_t e = 0; e < inner; ++e) {
            double v = 1.0;
            for (unsigned j = 0; j < inputs; ++j)
                v *= in[j][off[j]];
            if (product_max)
                acc = v > acc ? v : acc;
            else
                acc += v;
            advance(idx, size, stride, axes, off, inputs, out_axes, axes);
        }
        out[r] = !p->op_inverse_max[o] ? acc : acc > 0.0 ? 1.0 / acc : 1.0;
        advance(idx, size, stride, axes, off, inputs, 0, out_axes);
    }
}

static int observed(const struct request *r, size_t c, unsigned v) {
    return r->evidence && c < r->cases ? r->evidence[c * NUM_VARIABLES + v] : ZBDD_UNOBSERVED;
}

/* λ_X(x, case) = 1 where the case leaves X unobserved or observes x, else 0. */
static void fill_evidence(const struct jt_program *p, double *msg, const struct request *r,
                          size_t first) {
    unsigned a[NUM_VARIABLES + 1] = {0};
    for (unsigned v = 0; v < NUM_VARIABLES; ++v) {
        const unsigned t = p->evidence_table[v];
        double *base = msg + p->table_offset[t];
        for (unsigned b = 0; b < BATCH; ++b) {
            const int s = observed(r, first + b, v);
            a[CASE_VAR] = b;
            for (unsigned x = 0; x < p->domain[v]; ++x) {
                uint64_t row = 0;
                a[v] = x;
                for (unsigned i = p->table_first[t]; i < p->table_first[t + 1]; ++i)
                    row += (uint64_t)a[p->scope_var[i]] * p->scope_stride[i];
                base[row] = s == ZBDD_UNOBSERVED || (unsigned)s == x ? 1.0 : 0.0;
            }
        }
        a[v] = 0;
    }
}

/* log10 of the root's value with every collect scale undone; -inf where it is 0. */
static double log10_root(const struct jt_program *p, const double *msg, unsigned b) {
    unsigned a[NUM_VARIABLES + 1] = {0};
    a[CASE_VAR] = b;
    const double z = table_value(p, msg, p->normaliser, a);
    if (!(z > 0.0))
        return -INFINITY;
    double l = log(z);
    for (unsigned s = 0; s < p->num_scales; ++s)
        l -= log(table_value(p, msg, p->scales[s], a));
    return l / LN10;
}

static void read_marginals(const double *msg, const struct request *r, size_t c, unsigned b) {
    const struct jt_program *p = &sum_program;
    double *m = r->marginals + c * NUM_MARGINALS;
    unsigned a[NUM_VARIABLES + 1] = {0};
    a[CASE_VAR] = b;
    for (unsigned v = 0; v < NUM_VARIABLES; ++v) {
        const int s = observed(r, c, v);
        double sum = 0.0;
        for (unsigned x = 0; x < p->domain[v]; ++x) {
            a[v] = x;
            m[x] = s != ZBDD_UNOBSERVED ? ((unsigned)s == x)
                                        : table_value(p, msg, p->marginal_table[v], a);
            sum += m[x];
        }
        for (unsigned x = 0; x < p->domain[v]; ++x)
            m[x] /= sum;
        a[v] = 0;
        m += p->domain[v];
    }
}

/* Last reducing op first, each picks the first best joint value of its eliminated variables
 * given the variables assigned already. */
static void trace_back(const double *msg, const struct request *r, size_t c, unsigned b) {
    const struct jt_program *p = &max_program;
    unsigned a[NUM_VARIABLES + 1], best[NUM_VARIABLES + 1];
    for (unsigned v = 0; v < NUM_VARIABLES; ++v) {
        const int s = observed(r, c, v);
        a[v] = s == ZBDD_UNOBSERVED ? 0u : (unsigned)s;
    }
    a[CASE_VAR] = b;
    for (unsigned o = p->num_ops; o-- > 0;) {
        if (!p->op_reduces[o])
            continue;
        const unsigned first = p->op_vfirst[o], last = p->op_vfirst[o + 1];
        double best_value = 0.0;
        int any = 0;
        for (unsigned i = first; i < last; ++i)
            a[p->op_var[i]] = 0;
        for (;;) {
            double value = 1.0;
            for (unsigned i = p->op_first[o]; i < p->op_first[o + 1]; ++i)
                value *= table_value(p, msg, p->op_input[i], a);
            if (!any || value > best_value) {
                any = 1;
                best_value = value;
                for (unsigned i = first; i < last; ++i)
                    best[i - first] = a[p->op_var[i]];
            }
            unsigned i = last;
            while (i > first && ++a[p->op_var[i - 1]] == p->domain[p->op_var[i - 1]])
                a[p->op_var[--i]] = 0;
            if (i == first)
                break;
        }
        for (unsigned i = first; i < last; ++i)
            a[p->op_var[i]] = best[i - first];
    }
    for (unsigned v = 0; v < NUM_VARIABLES; ++v)
        r->assignment[c * NUM_VARIABLES + v] = (int)a[v];
}

static void run_chunk(double *msg, struct request *r, size_t chunk) {
    const struct jt_program *p = r->task == TASK_MPE ? &max_program : &sum_program;
    const size_t first = chunk * BATCH;
    fill_evidence(p, msg, r, first);
    const unsigned ops = r->task == TASK_PR ? p->pr_ops : p->num_ops;
    for (unsigned o = 0; o < ops; ++o)
        if (p->ops[o])
            run_op(p->ops[o], msg, 0, p->op_outer[o], p->op_work[o], r->op_threads);
        else
            generic_op(p, msg, o);
    for (unsigned b = 0; b < BATCH && first + b < r->cases; ++b) {
        const size_t c = first + b;
        const double l = log10_root(p, msg, b);
        const int zero = isinf(l);
        r->status[c] = zero ? ZBDD_CASE_ZERO : ZBDD_CASE_OK;
        r->log10[c] = l;
        if (r->task == TASK_MAR) {
            if (zero)
                for (unsigned i = 0; i < NUM_MARGINALS; ++i)
                    r->marginals[c * NUM_MARGINALS + i] = NAN;
            else
                read_marginals(msg, r, c, b);
        } else if (r->task == TASK_MPE) {
            if (zero)
                for (unsigned v = 0; v < NUM_VARIABLES; ++v)
                    r->assignment[c * NUM_VARIABLES + v] = -1;
            else
                trace_back(msg, r, c, b);
        }
    }
}

/* A worker takes chunks until none is left; one that cannot allocate its tables takes none. */
static void *work(void *arg) {
    struct request *r = (struct request *)arg;
    const struct jt_program *p = r->task == TASK_MPE ? &max_program : &sum_program;
    double *msg = (double *)malloc((p->message_entries + 1) * sizeof(double));
    if (!msg)
        return 0;
    for (size_t k; (k = __atomic_fetch_add(&r->next_chunk, 1, __ATOMIC_RELAXED)) < r->chunks;) {
        run_chunk(msg, r, k);
        __atomic_fetch_add(&r->done_chunks, 1, __ATOMIC_RELAXED);
    }
    free(msg);
    return 0;
}

static unsigned configured_threads = 0; /* 0: every online core */

static int answer(struct request *r) {
    if (r->cases == 0)
        return ZBDD_NETWORK_OK;
    if ((r->evidence && !zbdd_valid_buffer(r->evidence, r->cases, NUM_VARIABLES, sizeof(int))) ||
        !zbdd_valid_buffer(r->status, r->cases, 1, sizeof(int)) ||
        !zbdd_valid_buffer(r->log10, r->cases, 1, sizeof(double)) ||
        (r->task == TASK_MAR &&
         !zbdd_valid_buffer(r->marginals, r->cases, NUM_MARGINALS, sizeof(double))) ||
        (r->task == TASK_MPE &&
         !zbdd_valid_buffer(r->assignment, r->cases, NUM_VARIABLES, sizeof(int))))
        return ZBDD_NETWORK_EARG;
    for (size_t i = 0; r->evidence && i < r->cases * NUM_VARIABLES; ++i) {
        const int s = r->evidence[i];
        if (s != ZBDD_UNOBSERVED && (s < 0 || (unsigned)s >= sum_program.domain[i % NUM_VARIABLES]))
            return ZBDD_NETWORK_EARG;
    }
    r->chunks = (r->cases + BATCH - 1) / BATCH;
    long n = __atomic_load_n(&configured_threads, __ATOMIC_RELAXED);
    if (n == 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads = n < 1 ? 1u : n > (long)MAX_THREADS ? MAX_THREADS : (unsigned)n;
    /* Each worker holds one run's tables: together at most a quarter of the physical memory. */
    const struct jt_program *p = r->task == TASK_MPE ? &max_program : &sum_program;
    const double run_bytes = (double)(p->message_entries + 1) * sizeof(double);
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    unsigned workers = threads;
    if (pages > 0 && page > 0) {
        const double fit = (double)pages * (double)page / 4 / run_bytes;
        if (fit < workers)
            workers = fit < 1 ? 1u : (unsigned)fit;
    }
    if (workers > r->chunks)
        workers = (unsigned)r->chunks;
    /* Threads that no run keeps busy share the rows of the large ops (one case of pigs). */
    r->op_threads = threads / workers;
    pthread_t ids[MAX_THREADS];
    int started[MAX_THREADS];
    for (unsigned t = 1; t < workers; ++t)
        started[t] = pthread_create(&ids[t], 0, work, r) == 0;
    work(r);
    for (unsigned t = 1; t < workers; ++t)
        if (started[t])
            pthread_join(ids[t], 0);
    return r->done_chunks == r->chunks ? ZBDD_NETWORK_OK : ZBDD_NETWORK_ENOMEM;
}

EXPORT int zbdd_network_abi_version(void) {
    return ZBDD_NETWORK_ABI_VERSION;
}
EXPORT size_t zbdd_network_num_variables(void) {
    return NUM_VARIABLES;
}
EXPORT unsigned zbdd_network_num_states(size_t v) {
    return v < NUM_VARIABLES ? sum_program.domain[v] : 0u;
}
EXPORT size_t zbdd_network_num_marginals(void) {
    return NUM_MARGINALS;
}
EXPORT const char *zbdd_network_metadata(void) {
    return metadata;
}
EXPORT void zbdd_network_set_threads(unsigned threads) {
    __atomic_store_n(&configured_threads, threads, __ATOMIC_RELAXED);
}

EXPORT int zbdd_network_pr(const int *evidence, size_t cases, double *log10_pr, int *status) {
    struct request r = {TASK_PR, evidence, cases, 0, 0, log10_pr, 0, status, 0, 0};
    return answer(&r);
}

EXPORT int zbdd_network_mar(const int *evidence, size_t cases, double *marginals, double *log10_pr,
                            int *status) {
    struct request r = {TASK_MAR, evidence, cases, 0, marginals, log10_pr, 0, status, 0, 0};
    return answer(&r);
}

EXPORT int zbdd_network_mpe(const int *evidence, size_t cases, int *assignment, double *log10_value,
                            int *status) {
    struct request r = {TASK_MPE, evidence, cases, 0, 0, log10_value, assignment, status, 0, 0};
    return answer(&r);
}
