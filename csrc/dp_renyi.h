/* Renyi divergences D_alpha of the worst-case DP pairs in closed form, over
 * an array of orders (Mironov, "Renyi differential privacy", Table II):
 *
 *   Laplace(b), t = 1/b:   D = ln( a/(2a-1) e^((a-1) t) + (a-1)/(2a-1) e^(-a t) ) / (a-1)
 *   geometric(g), L = -ln g:  D = ln( (g^(1-a) + g^a) / (1 + g) ) / (a-1)
 *
 * (a = 1: the KL divergence, a = inf: the largest loss t resp. L).  Written
 * without cancellation as a sum of at most three terms of known signs,
 *
 *   Laplace:   D = f1(z)/(2a-1) + f2(x)/(a-1),        z = (2a-1) t,
 *              x = -(a-1) (1 - e^(-z))/(2a-1);
 *   geometric: D = L (1-g)/(1+g) + g f1(w)/((1+g)(a-1)) + f2(y)/(a-1),
 *              w = 2 (a-1) L,  y = g (e^(-w) - 1)/(1+g),
 *
 * with f1(z) = z + e^(-z) - 1 >= 0 and f2(x) = ln(1+x) - x <= 0 by series
 * near 0, each term in long double.  Each value comes with a certificate:
 * certain[i] = 1 when the result's error bound (2^-59 of the sum of the
 * terms' magnitudes, about 30 long double ulps) leaves one double as its
 * rounding, so that out[i] is the correctly rounded D; else 0 and the
 * caller recomputes that order in higher precision (statpriv: mpmath).
 * Pure functions: no global state, no allocation, safe without the GIL. */
#ifndef STATPRIV_DP_RENYI_H
#define STATPRIV_DP_RENYI_H

/* alpha[i] > 0 (inf allowed), b > 0: out[i] and certain[i], i < n. */
void sp_dp_renyi_laplace(const double *alpha, long n, double b, double *out, int *certain);

/* alpha[i] > 0 (inf allowed), 0 < g < 1. */
void sp_dp_renyi_geometric(const double *alpha, long n, double g, double *out, int *certain);

#endif
