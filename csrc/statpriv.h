/* statpriv's C kernels: the public umbrella header (the future C API).
 *
 * Exact privacy curves delta(eps) -- hockey-stick divergences H_eps(P||Q)
 * of the two laws of a released value when the target record is positive
 * (P) or negative (Q) -- for counting queries when the attacker does not
 * know every record (Breutigam & Reischuk, "Statistical Privacy").  Every
 * function is pure (no global mutable state), allocates only where its
 * contract says so (and checks), and runs without the GIL.
 *
 * Layers, bottom up (a header includes only headers of lower layers; a
 * mechanism may include pair_tail.h, never the reverse):
 *   sp_curve.h          conventions: enum sp_direction {SP_PLUS, SP_MINUS,
 *                       SP_MAX} (the one direction encoding), the curve
 *                       interface sp_curve_fn, shared tolerances
 *   logspace.h          log-space arithmetic: logaddexp, log1mexp, the
 *                       sp_logsum accumulator, fast exp/log of long doubles,
 *                       double-double helpers, log cumulative sums, the
 *                       negative-eps identity
 *   pmf.h               Loader's binomial / hypergeometric log-pmfs
 *                       (stirlerr, bd0) and consistent pmf windows
 *   poisson_binomial.h  exact Poisson-binomial pmfs by a product tree
 *   binomial_tail.h     the iid binomial shift curve (noiseless counting)
 *   poisson_sampling.h  Poisson sampling reduced to a shift curve (Smith 2009)
 *   pair_tail.h         the generic discrete pair tail sum, with an optional
 *                       cell-term callback for cells that are not point masses
 *   bounded.h           a curve on a window of its laws + the bounded rest
 *   search.h            epsilon(delta): the smallest eps with delta <= target
 *   dp.h                worst-case DP closed forms (Laplace, Gaussian, geometric)
 *   laplace.h           Laplace-noise cells + the pair kernel's cell callback
 *   geometric.h         geometric-noise cells (point masses for the pair kernel)
 *   gaussian.h          Gaussian-noise curve (normal tail sums at sign changes)
 *   kde.h               empirical DP (Burchard, Daoud & Dotterrer): hockey-stick
 *                       integrals of kernel density estimates, ECDF bins,
 *                       Hausdorff distances (standalone: includes no layer)
 *
 * Adding a noise kind: one header + source that builds its cells (and, if its
 * cells are not point masses, an sp_cell_fn for pair_tail.h), or that
 * evaluates its own sp_curve_fn; include it here. */
#ifndef STATPRIV_STATPRIV_H
#define STATPRIV_STATPRIV_H

#include "sp_curve.h"
#include "logspace.h"
#include "pmf.h"
#include "poisson_binomial.h"
#include "binomial_tail.h"
#include "poisson_sampling.h"
#include "pair_tail.h"
#include "bounded.h"
#include "search.h"
#include "dp.h"
#include "laplace.h"
#include "geometric.h"
#include "gaussian.h"
#include "kde.h"

#endif
