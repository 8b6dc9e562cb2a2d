/* Empirical differential privacy (Burchard, Daoud & Dotterrer, "Empirical
 * Differential Privacy"): the hockey-stick integrals
 *
 *     delta_plus  = int (p(x) - e^eps p_i(x))_+ dx,
 *     delta_minus = int (p_i(x) - e^eps p(x))_+ dx
 *
 * between the density estimate p of the query values q = {f(X^r)} and the
 * estimate p_i of the leave-one-out values q_i = {f(X^r \ i)}, for a batch
 * of individuals (rows of a matrix, one row of length m per individual).
 *
 * - sp_kde_laplace_delta: fixed-width Laplace kernels, exact.  Between two
 *   consecutive sample points (of either set) both densities are
 *   A e^{-u/s} + B e^{-(h-u)/s}, so p - e^eps p_i has at most one root there,
 *   found in closed form, and the integral of its positive part is closed
 *   form (no grid, no quadrature).
 * - sp_kde_bound_delta: Gaussian or Laplace kernels with a width per point
 *   (fixed or variable bandwidth): adaptive bisection of the line into cells
 *   on which the sign of the integrand is certified from bounds of every
 *   kernel over the cell; certified-positive runs are integrated exactly from
 *   the kernels' CDFs, the cells left undecided (at the roots, width down to
 *   the tolerance) and the tails beyond the domain are bounded by their mass,
 *   which is ADDED to delta and reported in *bound.
 * - sp_hist_delta: the ECDF differenced over fixed bins (the bins of q): the
 *   exact discrete hockey stick of the two bin-mass vectors.
 * - sp_hausdorff: the Hausdorff distance of two finite sets (sorted arrays).
 *
 * Rows and the reference set are sorted ascending by the caller.  Every
 * function is pure, allocates only its workspace (checked: returns -1 when
 * an allocation fails, 0 on success) and runs without the GIL. */
#ifndef STATPRIV_KDE_H
#define STATPRIV_KDE_H

#include <stddef.h>

enum sp_kernel { SP_KERNEL_GAUSS = 0, SP_KERNEL_LAPLACE = 1 };

/* Exact delta_plus / delta_minus for Laplace kernels of one scale s > 0.
 * a: n sorted values (q); rows: count rows of m sorted values each (q_i),
 * row k at rows + k*m.  out_plus[k], out_minus[k] receive the two integrals. */
int sp_kde_laplace_delta(const double *a, size_t n, const double *rows, size_t m,
                         size_t count, double s, double eps,
                         double *out_plus, double *out_minus);

/* Certified delta_plus / delta_minus for kernels with a width per point:
 * wa[j] the width of a[j], wrows[k*m + j] the width of rows[k*m + j] (each
 * set's own widths).  tol: the total absolute error allowed per row and
 * direction.  out_bound[k] receives the bound (already added to both
 * outputs): the mass of the cells left undecided plus the tails. */
int sp_kde_bound_delta(enum sp_kernel kernel, const double *a, const double *wa, size_t n,
                       const double *rows, const double *wrows, size_t m, size_t count,
                       double eps, double tol,
                       double *out_plus, double *out_minus, double *out_bound);

/* ECDF differencing on fixed bins: inner_edges (nbins - 1 sorted values;
 * a value v falls in bin #{edges <= v}), p_mass[b] the bin masses of the
 * reference set (summing to 1); each row of m values is binned and
 * delta_plus = sum_b (P_b - e^eps Q_b)_+, delta_minus likewise. */
int sp_hist_delta(const double *inner_edges, size_t nbins, const double *p_mass,
                  const double *rows, size_t m, size_t count, double eps,
                  double *out_plus, double *out_minus);

/* Product kernels in d <= 3 dimensions, one width s[k] per axis: the
 * density of a set of n points x_j in R^d is (1/n) sum_j prod_k K_{s_k}(y_k - x_jk).
 * a: n points (n x d, row-major); rows: count sets of n points each, the
 * j-th point of a row paired with a's j-th (the same database with and
 * without the individual).  Certified adaptive subdivision of the domain
 * (every point +- 40 widths) into boxes, worst box first: on each box both
 * integrands are bounded above and below and integrated exactly (products of
 * kernel CDF differences); a box certified positive adds its integral, one
 * certified non-positive nothing, an undecided one an interval.  Stops when
 * the interval of max(delta_plus, delta_minus) is narrower than tol or after
 * max_boxes boxes.  out_plus / out_minus receive the UPPER ends (never below
 * the integrals), out_bound the width of the interval of their maximum
 * (max of the upper ends - max of the lower ends). */
int sp_kde_box_delta(enum sp_kernel kernel, int d, const double *a, const double *rows,
                     size_t n, size_t count, const double *s, double eps, double tol,
                     long max_boxes, double *out_plus, double *out_minus, double *out_bound);

/* Hausdorff distance between the sorted set a (n values) and each sorted row. */
void sp_hausdorff(const double *a, size_t n, const double *rows, size_t m, size_t count,
                  double *out);

#endif
