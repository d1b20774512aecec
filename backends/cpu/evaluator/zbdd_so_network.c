/* The network ABI (zbdd_network.h) of a model.so, route mlf: PR and MAR of a network's MLF over
 * batches of evidence, answered by the circuit (zbdd_eval, and the adjoints for MAR: Darwiche
 * 2003's differential semantics, P(X=x, e) = ∂f/∂λ_x). The meaning of each input comes from the
 * model's own metadata (docs/c-api.md), read once. Only a sum-product circuit without free inputs
 * answers; MPE, and every task of any other circuit, is ZBDD_NETWORK_ENOTASK: the circuit has no
 * traceback of its own (zbddc run decodes MPE from max-product adjoints in process). */
#define _DEFAULT_SOURCE /* mincore */
#include "zbdd_buffer_check.h"
#include "zbdd_evaluator.h"
#include "zbdd_network.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZBDD_HIDDEN __attribute__((visibility("hidden")))
#define ZBDD_EXPORT __attribute__((visibility("default")))

/* zbdd_so_exports.c: the model's program, metadata and the library's thread setting. */
ZBDD_HIDDEN struct zbdd_program zbdd_so_program(void);
ZBDD_HIDDEN unsigned zbdd_so_threads(void);
ZBDD_HIDDEN void zbdd_so_set_threads(unsigned threads);
ZBDD_HIDDEN extern const char zbdd_gen_metadata[];

/* Cases per evaluation: the input and adjoint rows of a chunk stay near 32 MiB. */
#define CHUNK_BYTES ((size_t)32 << 20)

static struct {
    int answers; /* sum-product, no free inputs: PR and MAR */
    size_t variables, inputs, marginals;
    unsigned *states; /* per variable */
    size_t *offset;   /* per variable: its first marginal */
    long *indicator;  /* per input: offset(v) + state, or -1 */
    long *variable;   /* per input: an indicator's variable, or -1 */
    double *value;    /* per input: a parameter's value */
    char *metadata;   /* the network metadata text */
} net;
static pthread_once_t net_once = PTHREAD_ONCE_INIT;

/* The next whitespace-separated token of *s, as [start, *s); 0 at the end. */
static const char *token(const char **s, size_t *length) {
    const char *p = *s + strspn(*s, " \t\r\n");
    *length = strcspn(p, " \t\r\n");
    *s = p + *length;
    return *length ? p : 0;
}

static int is(const char *t, size_t length, const char *word) {
    return t && length == strlen(word) && memcmp(t, word, length) == 0;
}

static unsigned long number(const char **s) {
    size_t length;
    const char *t = token(s, &length);
    return t ? strtoul(t, 0, 10) : 0;
}

/* Reads the model's metadata (written by zbddc, so well formed; a surprise leaves `answers` 0). */
static void read_metadata(void) {
    const char *s = zbdd_gen_metadata, *t, *semiring = 0, *numeric = 0, *vars_start = 0;
    size_t length, semiring_length = 0, numeric_length = 0;
    while ((t = token(&s, &length)) && !is(t, length, "variables")) {
        if (is(t, length, "semiring"))
            semiring = token(&s, &semiring_length);
        else if (is(t, length, "numeric"))
            numeric = token(&s, &numeric_length);
    }
    if (!t || !semiring || !numeric)
        return;
    vars_start = t;
    net.variables = number(&s);
    net.states = calloc(net.variables + 1, sizeof *net.states);
    net.offset = calloc(net.variables + 1, sizeof *net.offset);
    if (!net.states || !net.offset)
        return;
    for (size_t v = 0; v < net.variables; ++v) {
        token(&s, &length); /* "variable" */
        token(&s, &length); /* its name */
        net.states[v] = (unsigned)number(&s);
        net.offset[v] = net.marginals;
        net.marginals += net.states[v];
        for (unsigned x = 0; x < net.states[v]; ++x)
            token(&s, &length);
    }
    const char *vars_end = s;
    if (!(t = token(&s, &length)) || !is(t, length, "inputs"))
        return;
    net.inputs = number(&s);
    net.indicator = calloc(net.inputs + 1, sizeof *net.indicator);
    net.variable = calloc(net.inputs + 1, sizeof *net.variable);
    net.value = calloc(net.inputs + 1, sizeof *net.value);
    if (!net.indicator || !net.variable || !net.value)
        return;
    int free_inputs = 0;
    for (size_t i = 0; i < net.inputs; ++i) {
        t = token(&s, &length);
        net.indicator[i] = net.variable[i] = -1;
        if (is(t, length, "indicator")) {
            const unsigned long v = number(&s), x = number(&s);
            if (v >= net.variables || x >= net.states[v])
                return;
            net.indicator[i] = (long)(net.offset[v] + x);
            net.variable[i] = (long)v;
        } else if (is(t, length, "parameter")) {
            const char *value = token(&s, &length);
            net.value[i] = value ? strtod(value, 0) : 0.0;
        } else {
            free_inputs = 1;
        }
        token(&s, &length); /* the input's name */
    }
    const struct zbdd_program p = zbdd_so_program();
    net.answers = !free_inputs && p.semiring == 0 && p.num_inputs == net.inputs &&
                  p.num_outputs >= 1 && p.forward_all;
    const size_t head = 64 + semiring_length + numeric_length + 32;
    net.metadata = malloc(head + (size_t)(vars_end - vars_start) + 2);
    if (!net.metadata) {
        net.answers = 0;
        return;
    }
    int n = snprintf(net.metadata, head,
                     "zbdd-network 1\nroute mlf\nsemiring %.*s\nnumeric %.*s\n"
                     "tasks %s\n",
                     (int)semiring_length, semiring, (int)numeric_length, numeric,
                     net.answers ? "pr,mar" : "none");
    memcpy(net.metadata + n, vars_start, (size_t)(vars_end - vars_start));
    net.metadata[n + (vars_end - vars_start)] = '\n';
    net.metadata[n + (vars_end - vars_start) + 1] = '\0';
}

static void ready(void) {
    pthread_once(&net_once, read_metadata);
}

/* dlclose unmaps the pointers: free what they hold first. */
__attribute__((destructor)) static void release(void) {
    free(net.states);
    free(net.offset);
    free(net.indicator);
    free(net.variable);
    free(net.value);
    free(net.metadata);
}

/* One case's inputs: indicators 1 where consistent with the evidence, parameters their values. */
static void fill_inputs(double *x, const int *evidence) {
    for (size_t i = 0; i < net.inputs; ++i) {
        const long v = net.variable[i];
        const int e = evidence && v >= 0 ? evidence[v] : ZBDD_UNOBSERVED;
        x[i] = v < 0
                   ? net.value[i]
                   : e == ZBDD_UNOBSERVED || (size_t)e == (size_t)net.indicator[i] - net.offset[v];
    }
}

static int answer(const int *evidence, size_t cases, double *marginals, double *log10_pr,
                  int *status) {
    ready();
    if (cases == 0)
        return ZBDD_NETWORK_OK;
    if ((evidence && !zbdd_valid_buffer(evidence, cases, net.variables, sizeof(int))) ||
        !zbdd_valid_buffer(status, cases, 1, sizeof(int)) ||
        !zbdd_valid_buffer(log10_pr, cases, 1, sizeof(double)) ||
        (marginals && !zbdd_valid_buffer(marginals, cases, net.marginals, sizeof(double))))
        return ZBDD_NETWORK_EARG;
    for (size_t i = 0; evidence && i < cases * net.variables; ++i) {
        const int s = evidence[i];
        if (s != ZBDD_UNOBSERVED && (s < 0 || (unsigned)s >= net.states[i % net.variables]))
            return ZBDD_NETWORK_EARG;
    }
    if (!net.answers)
        return ZBDD_NETWORK_ENOTASK;
    const struct zbdd_program p = zbdd_so_program();
    const size_t width = net.inputs ? net.inputs : 1;
    size_t chunk = CHUNK_BYTES / (2 * width * sizeof(double));
    chunk = chunk < 1 ? 1 : chunk > cases ? cases : chunk;
    double *x = malloc(chunk * width * sizeof(double));
    double *out = malloc(chunk * p.num_outputs * sizeof(double));
    double *adj = marginals ? malloc(chunk * width * sizeof(double)) : 0;
    int rc = x && out && (adj || !marginals) ? ZBDD_NETWORK_OK : ZBDD_NETWORK_ENOMEM;
    for (size_t first = 0; rc == ZBDD_NETWORK_OK && first < cases; first += chunk) {
        const size_t n = cases - first < chunk ? cases - first : chunk;
        for (size_t c = 0; c < n; ++c)
            fill_inputs(x + c * width, evidence ? evidence + (first + c) * net.variables : 0);
        if (zbdd_run_eval(&p, x, out, n, zbdd_so_threads()) != ZBDD_OK ||
            (marginals && zbdd_run_adjoints(&p, x, 0, adj, n, zbdd_so_threads()) != ZBDD_OK)) {
            rc = ZBDD_NETWORK_ENOMEM;
            break;
        }
        for (size_t c = 0; c < n; ++c) {
            const size_t k = first + c;
            const double root = out[c * p.num_outputs];
            /* float64: a P(e) below DBL_MIN cannot be told from 0 (a --numeric log .so can). */
            const int zero = p.log_space ? isinf(root) && root < 0 : !(root >= DBL_MIN);
            status[k] = !zero ? ZBDD_CASE_OK : p.log_space ? ZBDD_CASE_ZERO : ZBDD_CASE_UNDERFLOW;
            log10_pr[k] = p.log_space ? root / M_LN10 : log10(root);
            if (!marginals)
                continue;
            double *m = marginals + k * net.marginals;
            for (size_t j = 0; j < net.marginals; ++j)
                m[j] = zero ? NAN : 0.0;
            if (zero)
                continue;
            for (size_t i = 0; i < net.inputs; ++i)
                if (net.indicator[i] >= 0) {
                    const double a = adj[c * width + i];
                    m[net.indicator[i]] += p.log_space ? exp(a - root) : a / root;
                }
            for (size_t v = 0; evidence && v < net.variables; ++v) {
                const int e = evidence[k * net.variables + v];
                for (unsigned s = 0; e != ZBDD_UNOBSERVED && s < net.states[v]; ++s)
                    m[net.offset[v] + s] = (unsigned)e == s;
            }
        }
    }
    free(x);
    free(out);
    free(adj);
    return rc;
}

ZBDD_EXPORT int zbdd_network_abi_version(void) {
    return ZBDD_NETWORK_ABI_VERSION;
}
ZBDD_EXPORT size_t zbdd_network_num_variables(void) {
    ready();
    return net.variables;
}
ZBDD_EXPORT unsigned zbdd_network_num_states(size_t v) {
    ready();
    return v < net.variables ? net.states[v] : 0u;
}
ZBDD_EXPORT size_t zbdd_network_num_marginals(void) {
    ready();
    return net.marginals;
}
ZBDD_EXPORT const char *zbdd_network_metadata(void) {
    ready();
    return net.metadata ? net.metadata : "zbdd-network 1\nroute mlf\ntasks none\nvariables 0\n";
}
ZBDD_EXPORT void zbdd_network_set_threads(unsigned threads) {
    zbdd_so_set_threads(threads);
}

ZBDD_EXPORT int zbdd_network_pr(const int *evidence, size_t cases, double *log10_pr, int *status) {
    return answer(evidence, cases, 0, log10_pr, status);
}

ZBDD_EXPORT int zbdd_network_mar(const int *evidence, size_t cases, double *marginals,
                                 double *log10_pr, int *status) {
    if (cases && !marginals)
        return ZBDD_NETWORK_EARG;
    return answer(evidence, cases, marginals, log10_pr, status);
}

ZBDD_EXPORT int zbdd_network_mpe(const int *evidence, size_t cases, int *assignment,
                                 double *log10_value, int *status) {
    (void)evidence;
    (void)cases;
    (void)assignment;
    (void)log10_value;
    (void)status;
    return ZBDD_NETWORK_ENOTASK;
}
