# Declarations of the C kernels in csrc/, one block per header (see the headers for the
# contracts; csrc/statpriv.h lists the layers).

cdef extern from "sp_curve.h" nogil:
    ctypedef enum sp_direction:
        SP_PLUS
        SP_MINUS
        SP_MAX
    ctypedef double (*sp_curve_fn)(double eps, sp_direction direction,
                                   const void *ctx) noexcept nogil
    ctypedef struct sp_estimate:
        const void *curve
        int with_err

cdef extern from "logspace.h" nogil:
    double sp_log1mexp(double a)
    void sp_log_cumsum(const long double *la, long n, int reverse, long double *out)
    ctypedef struct sp_logsum:
        long double ref
        long double sum
    ctypedef struct sp_log_cumsum_marks:
        const long double *la
        long n
        int reverse
        const sp_logsum *marks
    long sp_log_cumsum_marks_len(long n)
    void sp_log_cumsum_mark(const long double *la, long n, int reverse, sp_logsum *marks)
    void sp_log_cumsum_mark_both(const long double *la, long n, sp_logsum *fwd, sp_logsum *rev)
    long double sp_log_cumsum_at(const sp_log_cumsum_marks *m, long j)
    double sp_log_hockey_negative_eps(double eps, double log_reverse_at_minus_eps)

cdef extern from "pmf.h" nogil:
    ctypedef struct sp_binom:
        pass
    void sp_binom_init(sp_binom *b, double N, double pi, int mirrored)
    double sp_log_binom_pmf(const sp_binom *b, double k)
    double sp_log_hypergeom_pmf(double j, double N, double K, double m)
    void sp_binom_window_logl(double N, double pi, double first, long count, long double *out)
    void sp_log_mixture(const long double *log_a, long na, const long double *log_b, long nb,
                        long double log_in, long double log_out, long size, long double *lp,
                        long double *lq)

cdef extern from "binomial_tail.h" nogil:
    ctypedef struct sp_binom_curve:
        pass
    void sp_binom_curve_init(sp_binom_curve *c, double N, double pi)
    double sp_binom_curve_log_delta(double eps, sp_direction direction, const void *ctx)
    void sp_binom_curve_log_delta_ascending(const sp_binom_curve *c, const double *eps, long n,
                                            sp_direction direction, double *out)

cdef extern from "poisson_sampling.h" nogil:
    ctypedef struct sp_poisson_curve:
        double g, l1g_hi, l1g_lo
    void sp_poisson_curve_init(sp_poisson_curve *c, double N, long double p, long double q,
                               double mean_hi, double mean_lo, double log_p, double log_q,
                               double g, double l1g_hi, double l1g_lo)
    double sp_poisson_curve_log_delta(double eps, sp_direction direction, const void *ctx)
    ctypedef struct sp_sampled_shift_curve:
        sp_curve_fn inner
        const void *inner_ctx
        double g, l1g_hi, l1g_lo
        int without_replacement
    double sp_sampled_shift_curve_log_delta(double eps, sp_direction direction, const void *ctx)
    void sp_poisson_log_ratio(long double n, double g, double pi, long double first, long count,
                              long double *out, double err_const, double *err)
    void sp_subsample_log_ratio(long double n, long double m, double pi, long double first,
                                long count, double err_const, long double *out, double *err)
    double sp_poisson_smallest_eps(const sp_poisson_curve *c, sp_direction direction,
                                   double log_target, double log_tol, int positive)

cdef extern from "pair_tail.h" nogil:
    ctypedef int (*sp_cell_fn)(const void *ctx, long j, double eps, sp_direction direction,
                               long double *out) noexcept nogil
    ctypedef struct sp_pair:
        const long double *lp
        const long double *lq
        const long double *lr
        const long double *lsp
        const long double *lcq
        long len
        int monotone
        sp_cell_fn cell_log_positive
        const void *cell_ctx
        double max_log_ratio
        const long double *lr_lo
        long double zero_hi[2]
        long double zero_lo[2]
        const long double *lsq
        const long double *lcp
        double tail_tol
        sp_log_cumsum_marks lsp_marks
        sp_log_cumsum_marks lcq_marks
        sp_log_cumsum_marks lsq_marks
        sp_log_cumsum_marks lcp_marks
        int closed_rest
    void sp_pair_init_zero(sp_pair *pair)
    double sp_pair_zero_point(const sp_pair *pair, sp_direction direction)
    double sp_pair_curve_log_delta(double eps, sp_direction direction, const void *ctx)
    double sp_pair_curve_log_delta_estimate(double eps, sp_direction direction, const void *ctx)
    double sp_pair_log_delta_upper(double eps, sp_direction direction, const void *ctx)

cdef extern from "search.h" nogil:
    double sp_smallest_eps(sp_curve_fn log_delta, const void *ctx, sp_direction direction,
                           double log_target, double log_tol, int positive)
    double sp_binom_smallest_eps(const sp_binom_curve *c, sp_direction direction, double log_target,
                                 double log_tol)
    double sp_smallest_eps_lean(sp_curve_fn log_delta, const void *ctx, sp_direction direction,
                                double log_target, double log_tol, int positive)
    double sp_smallest_eps_estimated(sp_curve_fn log_delta, const void *ctx, sp_curve_fn est,
                                     const void *const est_ctx[3], double margin,
                                     sp_direction direction, double log_target, double log_tol,
                                     int positive)

cdef extern from "poisson_binomial.h" nogil:
    ctypedef int (*sp_progress_fn)(void *ctx, double work) noexcept
    int sp_binomial_sum_window_progress(const double *probs, const double *counts, long groups,
                                        double drop_nats, long max_len, long double **out,
                                        long *first, long *len, long double *rest,
                                        sp_progress_fn progress, void *ctx, double step)

cdef extern from "laplace.h" nogil:
    void sp_laplace_cells(const long double *lp, const long double *lq, long n, double b,
                          long double *cell_lp, long double *cell_lq,
                          long double *ll_p, long double *lr_p,
                          long double *ll_q, long double *lr_q)
    void sp_laplace_cells_one(const long double *la, long n, double b, long double *cell_la,
                              long double *ll, long double *lr)
    int sp_laplace_cells_diff(const long double *lp, const long double *lq,
                              const long double *law_lr, long n, double b, long double *cell_lp,
                              long double *cell_lq, long double *ll_p, long double *lr_p,
                              long double *ll_q, long double *lr_q, long double *cell_lr,
                              double *err_c, double *err_l, double *err_r)
    void sp_laplace_atom_ratios(const long double *lp, const long double *lq,
                                const long double *law_lr, const long double *law_lo, long n,
                                double b, long double *ll_p, long double *lr_p,
                                const long double *ll_q, const long double *lr_q, double *err_l,
                                double *err_r, long double *ll_lo, long double *rr_lo)
    ctypedef struct sp_laplace_pair:
        const long double *ll_p
        const long double *lr_p
        const long double *ll_q
        const long double *lr_q
        const long double *ll_lo
        const long double *rr_lo
        long len
        double scale
        double one_minus_u
    void sp_laplace_pair_set_scale(sp_laplace_pair *pair, double scale)
    int sp_laplace_cell_term(const void *ctx, long j, double eps, sp_direction direction,
                             long double *out)
    long sp_laplace_deficits(const long double *la, const long double *lb,
                             const long double *lr_ab, const long double *lo_ab,
                             const long double *ll_a, const long double *rb,
                             const long double *cell_a, long n, int mirror, double b,
                             long double r_hi, long double r_lo, long double *dl, long double *er,
                             long double *dc, double *rel_l, double *rel_r, double *rel_c)

cdef extern from "geometric.h" nogil:
    int sp_geometric_cells(const long double *lp, const long double *lq, long n, double alpha,
                           long double *cell_lp, long double *cell_lq)
    int sp_geometric_shift_cells(const long double *lp, const long double *lq, long n, double alpha,
                                 long double *cell_lp, long double *cell_lq)
    int sp_geometric_shift_ratios(const long double *lp, const long double *lq,
                                  const long double *law_lr, long n, double alpha,
                                  long double *cell_lp, long double *cell_lq, long double *lr,
                                  double *err)
    int sp_geometric_difference_ratios(const long double *lp, const long double *lq,
                                       const long double *law_lr, long n, double alpha,
                                       const long double *cell_lq, long double *lr, double *err)
    long sp_geometric_deficits(const long double *la, const long double *lb,
                               const long double *lr_ab, const long double *lo_ab, int closed,
                               const long double *cell_la, long n, int mirror, double alpha,
                               long double r_hi, long double r_lo, long double *deficit,
                               double *rel_err)

cdef extern from "gaussian.h" nogil:
    ctypedef struct sp_gauss:
        const long double *lp
        const long double *lq
        const long double *lsp
        const long double *lcp
        const long double *lsq
        const long double *lcq
        long len
        double sigma
        long double lpmax
        long double lqmax
        long double lr_max
        long double lr_min
        long double lr_max_lo
        long double lr_min_lo
        const long double *lr
        const long double *lr_lo
        int monotone
        double (*log_ndtr)(double) noexcept nogil
        double (*erfcx)(double) noexcept nogil
    double sp_gauss_curve_log_delta(double eps, sp_direction direction, const void *ctx)
    double sp_gauss_curve_log_delta_estimate(double eps, sp_direction direction, const void *ctx)

cdef extern from "dp.h" nogil:
    ctypedef struct sp_normal_fns:
        double (*ndtr)(double) noexcept nogil
        double (*log_ndtr)(double) noexcept nogil
        double (*erfcx)(double) noexcept nogil
    ctypedef struct sp_dp_curve:
        int kind
        double param
        double eps0_hi
        double eps0_lo
        double log1p_alpha
        sp_normal_fns normal
    double sp_dp_laplace_log_delta(double eps, double inv_b_hi, double inv_b_lo)
    double sp_dp_geometric_log_delta(double eps, double eps0_hi, double eps0_lo, double log1p_alpha)
    double sp_dp_gaussian_log_delta(double eps, double sigma, const sp_normal_fns *fns)
    void sp_dp_init_laplace(sp_dp_curve *c, double b)
    void sp_dp_init_geometric(sp_dp_curve *c, double alpha, double neg_log_alpha_hi,
                              double neg_log_alpha_lo)
    void sp_dp_init_gaussian(sp_dp_curve *c, double sigma, const sp_normal_fns *fns)
    double sp_dp_curve_log_delta(double eps, sp_direction direction, const void *ctx)
    enum:
        SP_DP_LAPLACE
        SP_DP_GAUSSIAN
        SP_DP_GEOMETRIC

cdef extern from "dp_replace.h" nogil:
    ctypedef struct sp_dp_replace_curve:
        int kind
        double param
        double q
    void sp_dp_replace_init(sp_dp_replace_curve *c, int kind, double param, double q,
                            double z_hi, double z_lo, const sp_normal_fns *fns)
    double sp_dp_replace_log_delta(double eps, sp_direction direction, const void *ctx)

cdef extern from "dp_renyi.h" nogil:
    void sp_dp_renyi_laplace(const double *alpha, long n, double b, double *out, int *certain)
    void sp_dp_renyi_geometric(const double *alpha, long n, double g, double *out, int *certain)

cdef extern from "bounded.h" nogil:
    ctypedef struct sp_bounded:
        sp_curve_fn fn
        const void *ctx
        double log_rest_p
        double log_rest_q
        double lr_max
        double lr_min
        double zero_plus
        double zero_minus
        int discrete
        sp_curve_fn upper
        const void *upper_ctx
    double sp_bounded_log_delta(double eps, sp_direction direction, const void *ctx)

cdef extern from "renyi.h" nogil:
    long double sp_renyi_log_moment(const long double *log_p, const long double *loss, long n,
                                    long double t)
    void sp_renyi_log_moments(const long double *log_p, const long double *loss, long n,
                              long double tail_log_p, long double tail_loss, const double *t,
                              long m, double *out)

cdef extern from "shuffle.h" nogil:
    ctypedef struct sp_clones:
        double n
        double eps0
        double mode
        double sd
    void sp_clones_init(sp_clones *c, double n, double eps0)
    double sp_clones_log_inner(const sp_clones *c, double cc, double eps)
    double sp_clones_log_delta(double eps, sp_direction direction, const void *ctx)
    double sp_clones_smallest_eps(const sp_clones *c, double log_target, double log_tol)

# thresholded counts and k-anonymity (statpriv/thresholding/_thresholding.pyx)
cdef extern from "thresholding.h" nogil:
    ctypedef struct sp_thr_curve:
        const long double *lz
        const long double *lr
        const long double *lr_lo
        const long double *lcz
        long first
        long len
        const long *t
        const long double *lw
        long nt
        const long double *lb_hi
        const long double *lb_lo
        double log_rest
        double log_rest_b
        const long double *lsz
        const long double *lws
        const long double *lwp
        int fast
    void sp_thr_prepare(sp_thr_curve *c, long double *lsz, long double *lws, long double *lwp)
    double sp_thr_curve_log_delta(double eps, sp_direction direction, const void *ctx)
    void sp_thr_binomial_log_ratios(long double N, double pi, long first, long len, long double *lr)
    void sp_thr_refine_binomial(double N, double pi, long first, long len, const long double *lr,
                                const long *t, long nt, long double *lr_lo, long double *lb_hi,
                                long double *lb_lo)
    int sp_thr_refine_records(const double *p, long n, long lo, long first, long len,
                              const long double *lr, const long *t, long nt, long double *lr_lo,
                              long double *lb_hi, long double *lb_lo)

cdef extern from "k_anonymity.h" nogil:
    ctypedef struct sp_kanon_curve:
        long m_lo
        long m_hi
        const long double *merged_hi
        const long double *merged_lo
        const long double *lu_hi
        const long double *lu_lo
        const long double *lv_hi
        const long double *lv_lo
        long double bb_hi
        long double bb_lo
        int bb_refined
        double log_rest
    void sp_kanon_init(sp_kanon_curve *c, double n_others, double pa, double pb, long k, int upper)
    double sp_kanon_log_f(const sp_kanon_curve *c, long a, long b)
    void sp_kanon_fill_merged(sp_kanon_curve *c, long count, long double *lx, long double *ly,
                              long double *lc)
    void sp_kanon_fill_lower(sp_kanon_curve *c, long a_lo, long a_hi, long b_lo, long b_hi,
                             long u_first, long nu, long double *pu, long double *qu, long v_first,
                             long nv, long double *pv, long double *qv, long double *line)
    double sp_kanon_curve_log_delta(double eps, sp_direction direction, const void *ctx)
    int sp_kanon_refine_merged(double pa, double pb, long k, long m_lo, long count,
                               long double *hi, long double *lo)
    int sp_kanon_refine_lower(double N, double pa, double pb, long k, long u_first, long nu,
                              long v_first, long nv, long double *lu_hi, long double *lu_lo,
                              long double *lv_hi, long double *lv_lo, long double *bb)

cdef extern from "correlated_counts.h" nogil:
    int SP_CORR_MAX_K
    int sp_corr_lattice_log_law(long k, long N, const double *joint, long double *out,
                                long double *work)
    int sp_corr_two_log_law(long N, const double *joint, long double *out, long double *work)
    ctypedef struct sp_corr_max_curve:
        const sp_curve_fn *fns
        const void *const *ctxs
        long count
    double sp_corr_max_log_delta(double eps, sp_direction direction, const void *ctx)
    int sp_corr_two_window_law(long N, const double *joint, long m_lo, long m_hi, long c_lo,
                               long c_hi, double cut, double *out)
    ctypedef struct sp_corr_window:
        const double *law
        long rows
        long cols
        long d_row
        long d_col
        double tail
        const long *resolved[2]
        const double *resolved_log[2]
        long n_resolved[2]
    long sp_corr_window_resolve(long N, const double *joint, long m_lo, long c_lo,
                                const double *law, long rows, long cols, long d_row, long d_col,
                                double cell_floor, double partner_floor, long *index,
                                double *log_ratio, long capacity)
    double sp_corr_window_log_delta(double eps, sp_direction direction, const void *ctx)
    ctypedef struct sp_corr_box:
        long N
        double joint[8]
        long m_lo
        long m_hi
        long b_lo
        long b_hi
        long c_lo
        long c_hi
        double cut
        const long *shifts
        long count
        double tail
        int threads
    int sp_corr_three_box_law(const sp_corr_box *box, double *out, double *dropped)
    int sp_corr_box_sums(const sp_corr_box *box, double e, double *sums, double *dropped)
    double sp_corr_box_log_delta(double eps, sp_direction direction, const void *ctx)

cdef extern from "partial_knowledge.h" nogil:
    ctypedef struct sp_vertex_sys:
        double N
        double p
        long double pe
        long double qe
        long double lp
        long double lq
        long double q0
        long double d
        long double lq1
        double a_lo
        double a_hi
        double eps0
    void sp_vertex_init(sp_vertex_sys *s, double N, double p, long double q0, long double d)
    void sp_vertex_init_rr(sp_vertex_sys *s, double N, double eps0)
    double sp_vertex_log_hockey(const sp_vertex_sys *s, double a, double eps)
    double sp_vertex_log_hockey_bounds(const sp_vertex_sys *s, double n1, double n2, double eps,
                                       double depth, double *log_lower)
    double sp_vertex_window_smallest_eps(const sp_vertex_sys *s, double n1, double n2,
                                         double depth, double log_target, double log_tol)
    double sp_vertex_worst_log_hockey(const sp_vertex_sys *s, double eps, double *arg)
    double sp_vertex_curve_log_delta(double eps, sp_direction direction, const void *ctx)
    double sp_vertex_smallest_eps(const sp_vertex_sys *s, double log_target, double log_tol)
    ctypedef struct sp_blanket:
        pass
    long sp_blanket_work_len(double N, double p)
    int sp_blanket_init(sp_blanket *bl, double N, double p, double rel_tol, long double *work,
                        long work_len)
    double sp_blanket_log_delta(const sp_blanket *bl, double eps)
    double sp_blanket_curve_log_delta(double eps, sp_direction direction, const void *ctx)
    double sp_blanket_smallest_eps(const sp_blanket *bl, double log_target, double log_tol)

cdef extern from "kde.h" nogil:
    cdef enum sp_kernel:
        SP_KERNEL_GAUSS
        SP_KERNEL_LAPLACE
    int sp_kde_laplace_delta(const double *a, size_t n, const double *rows, size_t m,
                             size_t count, double s, double eps,
                             double *out_plus, double *out_minus)
    int sp_kde_bound_delta(sp_kernel kernel, const double *a, const double *wa, size_t n,
                           const double *rows, const double *wrows, size_t m, size_t count,
                           double eps, double tol,
                           double *out_plus, double *out_minus, double *out_bound)
    int sp_kde_box_delta(sp_kernel kernel, int d, const double *a, const double *rows,
                         size_t n, size_t count, const double *s, double eps, double tol,
                         long max_boxes, double *out_plus, double *out_minus,
                         double *out_bound)
    int sp_hist_delta(const double *inner_edges, size_t nbins, const double *p_mass,
                      const double *rows, size_t m, size_t count, double eps,
                      double *out_plus, double *out_minus)
    void sp_hausdorff(const double *a, size_t n, const double *rows, size_t m, size_t count,
                      double *out)

cdef extern from "ldmath.h" nogil:
    long double sp_ld_exp(long double x)
    long double sp_ld_expm1(long double x)
    long double sp_ld_log(long double x)
    long double sp_ld_log1p(long double x)
