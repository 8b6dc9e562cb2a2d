/* Conventions shared by every curve kernel (the bottom layer: no includes of
 * other statpriv headers).
 *
 * A privacy curve is a pair of laws (P, Q) -- the released value when the
 * target record is positive / negative -- and delta(eps) is the hockey-stick
 * divergence in a direction:
 *   SP_PLUS   delta_plus(eps)  = H_eps(P || Q) = sum (P - e^eps Q)_+
 *   SP_MINUS  delta_minus(eps) = H_eps(Q || P)
 *   SP_MAX    the larger of the two.
 * enum sp_direction is the ONLY direction encoding in csrc/: kernels take an
 * sp_direction (never an `int plus` flag), and arrays indexed by direction
 * have SP_PLUS = 0 and SP_MINUS = 1 as their two entries.
 *
 * Every curve is evaluated through an sp_curve_fn: ln delta(eps) of the
 * curve held in ctx.  Return convention (relied on by search.h):
 *   -inf      exactly where the TRUE delta is 0;
 *   finite    (at worst -DBL_MAX) wherever the true delta is > 0;
 *   NaN       for eps = NaN or a failed evaluation. */
#ifndef STATPRIV_SP_CURVE_H
#define STATPRIV_SP_CURVE_H

typedef enum sp_direction { SP_PLUS = 0, SP_MINUS = 1, SP_MAX = 2 } sp_direction;

/* The other one-sided direction (SP_PLUS <-> SP_MINUS): the identity
 * H_eps(P||Q) = 1 - e^eps + e^eps H_{-eps}(Q||P) maps eps < 0 onto it. */
static inline sp_direction sp_reverse(sp_direction direction)
{
    return direction == SP_PLUS ? SP_MINUS : SP_PLUS;
}

/* The curve interface shared by every curve: ln delta(eps) in a direction. */
typedef double (*sp_curve_fn)(double eps, sp_direction direction, const void *ctx);

/* The context of a curve's cheap estimate of ln delta (search.h,
 * sp_smallest_eps_estimated): the curve's own context and which variant,
 * with_err = 0 the plain estimate, +1 plus its error bound, -1 less its
 * typical error. */
typedef struct {
    const void *curve;
    int with_err;
} sp_estimate;

/* Relative size below which a kernel bounds the remaining tail of a sum and
 * adds the bound (never drops it), instead of summing it term by term. */
#define SP_TAIL_TOL 0x1p-60

#endif
