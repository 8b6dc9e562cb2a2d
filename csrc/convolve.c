#include <math.h>
#include <stdlib.h>
#include "convolve.h"
#include "logpmf.h"

int sp_binomial_sum_log_pmf(const double *probs, const double *counts, long groups,
                            long double *out, long total)
{
    long double *acc = malloc((size_t)(total + 1) * sizeof *acc);
    long double *next = malloc((size_t)(total + 1) * sizeof *next);
    long double *grp = malloc((size_t)(total + 1) * sizeof *grp);
    if (acc == NULL || next == NULL || grp == NULL) {
        free(acc);
        free(next);
        free(grp);
        return -1;
    }
    long len = 1;          /* acc holds the pmf of the groups so far on 0..len-1 */
    acc[0] = 1.0L;
    for (long g = 0; g < groups; g++) {
        long c = (long)counts[g];
        if (c <= 0 || len + c > total + 1) {
            continue;
        }
        sp_binom b;
        sp_binom_init(&b, (double)c, probs[g], 0);
        for (long k = 0; k <= c; k++) {
            grp[k] = expl((long double)sp_log_binom_pmf(&b, (double)k));
        }
        long new_len = len + c;
        for (long k = 0; k < new_len; k++) {
            long lo = k - c > 0 ? k - c : 0;
            long hi = k < len - 1 ? k : len - 1;
            long double s = 0.0L;
            for (long i = lo; i <= hi; i++) {
                s += acc[i] * grp[k - i];
            }
            next[k] = s;
        }
        long double *tmp = acc;
        acc = next;
        next = tmp;
        len = new_len;
    }
    for (long k = 0; k <= total; k++) {
        out[k] = k < len && acc[k] > 0.0L ? logl(acc[k]) : -INFINITY;
    }
    free(acc);
    free(next);
    free(grp);
    return 0;
}
