/* A C user of statpriv: the privacy curve of a noiseless count through the
 * public header alone (no Python), as an accountant written in C would.
 *
 *   count_curve N_RECORDS PI TARGET EPS...
 *
 * prints, for each EPS, "delta EPS LN_DELTA_PLUS LN_DELTA_MINUS LN_DELTA"
 * and then "epsilon TARGET EPS_FOR_TARGET", every number as a C99 hex float
 * (%a: exact, so the caller can compare bit for bit).  Exit status 2 on bad
 * arguments.  Built by tests/test_c_api.py with the system C compiler from
 * this file and every csrc .c file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "statpriv.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s N_RECORDS PI TARGET EPS...\n", argv[0]);
        return 2;
    }
    const double n = strtod(argv[1], NULL), pi = strtod(argv[2], NULL), target = strtod(argv[3], NULL);
    if (!(n >= 1.0 && n == floor(n) && pi >= 0.0 && pi <= 1.0 && target >= 0.0 && target <= 1.0)) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    /* n records, the target's and n - 1 others, each positive with
     * probability pi: the others' count is Bin(n - 1, pi).  The curve is a
     * plain struct on the stack: no allocation, nothing to free, and it is
     * read-only after sp_binom_curve_init (any number of threads may
     * evaluate it at once). */
    sp_binom_curve curve;
    sp_binom_curve_init(&curve, n - 1.0, pi);
    for (int i = 4; i < argc; i++) {
        const double eps = strtod(argv[i], NULL);
        printf("delta %a %a %a %a\n", eps, sp_binom_curve_log_delta(eps, SP_PLUS, &curve),
               sp_binom_curve_log_delta(eps, SP_MINUS, &curve), sp_binom_curve_log_delta(eps, SP_MAX, &curve));
    }
    /* epsilon(target): the smallest eps with delta(eps) <= target; log_tol 0
     * (the noiseless curve is exact to 1e-12) */
    printf("epsilon %a %a\n", target, sp_binom_smallest_eps(&curve, SP_MAX, log(target), 0.0));
    return 0;
}
