/* statpriv's C API: the public umbrella header.  Include this one file.
 *
 * What it computes.  Exact privacy curves delta(eps) -- hockey-stick
 * divergences H_eps(P||Q) = sum_x (P(x) - e^eps Q(x))_+ of the two laws of a
 * released value when the target record is positive (P) or negative (Q) --
 * for counting queries when the attacker does not know every record
 * (Breutigam & Reischuk, "Statistical Privacy"), with sampling, noise, and
 * the worst-case DP closed forms; and the shuffle-model clone reduction
 * (Feldman, McMillan & Talwar, "Hiding among the clones").  docs/c_api.md
 * walks through it; docs/mathematics.md has the formulas.
 *
 * Conventions (every curve; sp_curve.h):
 *   - A curve is evaluated as ln delta, never delta: ln delta stays exact
 *     where delta underflows double (1e-308).  -inf means delta = 0 exactly;
 *     NaN means eps was NaN or an evaluation failed (out of memory).
 *   - enum sp_direction: SP_PLUS = H_eps(P||Q), SP_MINUS = H_eps(Q||P),
 *     SP_MAX = the larger (the curve of "delta(eps)").  eps may be any real
 *     number or +-inf.
 *   - Every curve has an sp_curve_fn, double fn(eps, direction, ctx), with
 *     its context struct as ctx; sp_smallest_eps / sp_smallest_eps_lean
 *     (search.h) invert any of them: the smallest eps >= 0 with
 *     delta(eps) <= target, given ln target.
 *   - Accuracy: delta is never below the true value by more than 1e-12
 *     relative (1e-10 for curves with continuous noise); whatever a kernel
 *     does not sum (far tails) is bounded and ADDED.
 *
 * Ownership and memory.  Curve contexts (sp_binom_curve, sp_dp_curve,
 * sp_clones, sp_pair, ...) are plain structs the caller allocates (on the
 * stack is fine) and fills with the matching *_init function.  They own no
 * memory: every pointer one holds (the arrays of sp_pair and the noise
 * cells, the inner curve of a sampled curve, the normal-cdf callbacks of
 * the Gaussian curves) is borrowed from the caller, never copied or freed,
 * and must outlive the context.  Nothing needs to be released: there is no
 * *_free.  The only functions that allocate are the
 * ones whose header says so (the Poisson-binomial window returns a malloc'ed
 * array the CALLER frees with free(); the geometric-noise helpers allocate
 * and free a workspace internally); each checks every allocation and
 * returns an error code (or NaN) instead of crashing.
 *
 * Threads.  No global or static mutable state anywhere: every function is a
 * pure function of its arguments.  A context is read-only after its *_init,
 * so any number of threads may evaluate the same curve at once without
 * locks; the Python package calls these functions with the GIL released.
 *
 * Example: a noiseless count over n records, each positive with probability
 * pi (the n - 1 others' count is Bin(n - 1, pi); binomial_tail.h, search.h):
 *
 *     sp_binom_curve c;
 *     sp_binom_curve_init(&c, n - 1.0, pi);
 *     double ln_delta = sp_binom_curve_log_delta(0.1, SP_MAX, &c);
 *     double eps = sp_binom_smallest_eps(&c, SP_MAX, log(1e-9), 0.0);
 *
 * which are the numbers statpriv.counting(n, pi).log_delta(0.1) and
 * .epsilon(1e-9) return, bit for bit (tests/c_api/count_curve.c).  Build:
 * compile every .c file of csrc with a C99 compiler (no fast-math), link -lm;
 * the installed Python package ships these sources and headers in the
 * directory statpriv.get_include() returns.
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
 *   xprec.h             doubled long doubles with a separate exponent (pmfs
 *                       far outside float range to ~1e-37, their logs):
 *                       construction-time refinements of log ratios
 *                       (uses logspace.h)
 *   ldmath.h            accurate fast exp, expm1, log, log1p of long doubles
 *                       (tables of 2^-8 steps, tools/gen_ldmath.py)
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
 *   dp_replace.h        Poisson-subsampled Gaussian / Laplace DP under replace-one
 *                       (add/remove: poisson_sampling.h's reduction of dp.h)
 *   dp_renyi.h          closed-form Renyi divergences of the dp.h pairs, certified
 *   laplace.h           Laplace-noise cells + the pair kernel's cell callback
 *   geometric.h         geometric-noise cells (point masses for the pair kernel)
 *   gaussian.h          Gaussian-noise curve (normal tail sums at sign changes)
 *   renyi.h             accounting: Renyi log moments of a privacy-loss distribution
 *   shuffle.h           shuffle-model amplification: the clone reduction
 *                       (Feldman, McMillan & Talwar), a sum of shift curves
 *   thresholding.h      thresholded counts vs active / passive background knowledge
 *   k_anonymity.h       the k-anonymity histogram: two released counts (2-D sums)
 *   correlated_counts.h repeated counts on the same correlated records: the
 *                       law of the k counts on the whole lattice, the max
 *                       of curves (the worst target pair)
 *   partial_knowledge.h partial knowledge: the exact worst case over the
 *                       vertices of [p, 1-p]^N (generic over the target's
 *                       report pair), the privacy-blanket sum
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
#include "xprec.h"
#include "ldmath.h"
#include "pmf.h"
#include "poisson_binomial.h"
#include "binomial_tail.h"
#include "poisson_sampling.h"
#include "pair_tail.h"
#include "bounded.h"
#include "search.h"
#include "dp.h"
#include "dp_replace.h"
#include "dp_renyi.h"
#include "laplace.h"
#include "geometric.h"
#include "gaussian.h"
#include "renyi.h"
#include "shuffle.h"
#include "thresholding.h"
#include "k_anonymity.h"
#include "correlated_counts.h"
#include "partial_knowledge.h"
#include "kde.h"

#endif
