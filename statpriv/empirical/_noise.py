"""Noise that brings an empirical query to a target eps (Burchard, Daoud &
Dotterrer, "Empirical Differential Privacy", section 6).

With lambda = max_i d_H(q, q_i) / eps the Laplace KDEs of scale lambda of q
and of every q_i differ by at most a factor e^eps everywhere (Prop. 1).  The
curator's estimate p = k * (empirical law of q) with kernel k becomes that
Laplace KDE when the release adds noise of density h with k * h = l_lambda,
i.e. F h = F l_lambda / F k:

- Laplace kernel of scale s <= lambda:
  F h(w) = (1 + s^2 w^2) / (1 + lambda^2 w^2)
         = (s/lambda)^2 + (1 - (s/lambda)^2) / (1 + lambda^2 w^2),
  so h = (s/lambda)^2 delta_0 + (1 - (s/lambda)^2) Laplace(lambda), exactly
  (s >= lambda: no noise is needed, h = delta_0);
- Gaussian kernel of sd s: F h(w) = exp(s^2 w^2 / 2) / (1 + lambda^2 w^2) grows
  without bound, so no density solves the equation.  The band-limited
  inverse keeps |w| <= W, W the minimiser of F h (W^2 = 2/s^2 - 1/lambda^2),
  and inverts on a grid by FFT; the result is only approximately a density:
  its negative mass is measured, reported (``negative_mass``), warned about,
  and refused above ``max_negative_mass``; samples come from its positive
  part.
"""
import math
import warnings
from typing import Any

import numpy as np

__all__ = ["NoiseSampler", "laplace_kernel_noise", "gaussian_kernel_noise"]


class NoiseSampler:
    """A callable drawing noise: ``sampler(size=None)`` -> float or array.

    Attributes: kernel, kernel_scale (s), noise_scale (lambda), eps,
    zero_weight (Laplace kernel: the probability of adding nothing),
    negative_mass (Gaussian kernel: the negative mass of the band-limited
    inverse; 0.0 for the exact Laplace mixture), grid / density (Gaussian: h
    on its grid)."""

    def __init__(self, kernel: Any, kernel_scale: Any, noise_scale: Any, eps: Any,
                 seed: Any = None) -> None:
        self.kernel = kernel
        self.kernel_scale = float(kernel_scale)
        self.noise_scale = float(noise_scale)
        self.eps = float(eps)
        self.zero_weight = 0.0
        self.negative_mass = 0.0
        self.grid: Any = None          # the Gaussian kernel's noise density on a grid
        self.density: Any = None
        self._rng = np.random.default_rng(seed)

    def __repr__(self) -> Any:
        return (f"<NoiseSampler {self.kernel} kernel s={self.kernel_scale:.6g}, "
                f"lambda={self.noise_scale:.6g}, zero_weight={self.zero_weight:.6g}, "
                f"negative_mass={self.negative_mass:.3g}>")

    def __call__(self, size: Any = None) -> Any:
        rng = self._rng
        if self.kernel == "laplace":
            noise = rng.laplace(0.0, self.noise_scale, size) if self.noise_scale > 0 else \
                np.zeros(size if size is not None else ())
            keep = rng.random(size) < self.zero_weight
            out = np.where(keep, 0.0, noise)
        else:
            p = np.maximum(self.density, 0.0)
            idx = rng.choice(len(p), size=size, p=p / p.sum())
            dx = self.grid[1] - self.grid[0]
            out = self.grid[idx] + rng.uniform(-0.5 * dx, 0.5 * dx, size)
        return float(out) if size is None else out


def laplace_kernel_noise(s: Any, lam: Any, eps: Any, seed: Any = None) -> Any:
    """The exact mixture (s/lam)^2 delta_0 + (1 - (s/lam)^2) Laplace(lam)."""
    sampler = NoiseSampler("laplace", s, lam, eps, seed)
    sampler.zero_weight = 1.0 if s >= lam else (s / lam) ** 2
    return sampler


def gaussian_kernel_noise(s: Any, lam: Any, eps: Any, seed: Any = None,
                          max_negative_mass: Any = 0.05, max_points: Any = 2 ** 22) -> Any:
    """The band-limited FFT deconvolution of Laplace(lam) by N(0, s^2)."""
    if not 2.0 * lam * lam > s * s:
        raise ValueError(f"Gaussian kernel of sd {s:.6g} is too wide for the noise scale "
                         f"lambda = {lam:.6g} at eps = {eps:g} (need lambda > s/sqrt 2): "
                         f"F l / F k has no minimum to band-limit at; the kernel alone "
                         f"already smooths more (take a smaller eps or kernel='laplace')")
    W = math.sqrt(2.0 / (s * s) - 1.0 / (lam * lam))
    dx = math.pi / (4.0 * W)
    extent = 80.0 * lam
    n = 1 << max(10, math.ceil(math.log2(extent / dx)))
    if n > max_points:
        n = max_points
        dx = extent / n
        if dx > math.pi / W:
            raise ValueError(f"the Gaussian deconvolution needs more than {max_points} grid "
                             f"points (kernel sd {s:.3g} vs lambda {lam:.3g})")
    omega = 2.0 * math.pi * np.fft.fftfreq(n, d=dx)
    spectrum = np.where(np.abs(omega) <= W,
                        np.exp(0.5 * (s * omega) ** 2) / (1.0 + (lam * omega) ** 2), 0.0)
    h = np.real(np.fft.ifft(spectrum)) / dx
    h = np.fft.fftshift(h)
    grid = (np.arange(n) - n // 2) * dx
    negative = float(np.sum(np.maximum(-h, 0.0)) * dx)
    sampler = NoiseSampler("gauss", s, lam, eps, seed)
    sampler.grid, sampler.density, sampler.negative_mass = grid, h, negative
    if negative > max_negative_mass:
        raise ValueError(f"the band-limited Gaussian deconvolution has negative mass "
                         f"{negative:.3g} > max_negative_mass={max_negative_mass}: it is not "
                         f"a noise density; use kernel='laplace' (exact)")
    if negative > 0.0:
        warnings.warn(f"Gaussian-kernel noise: the band-limited deconvolution has negative "
                      f"mass {negative:.3g}; samples come from its positive part, so the "
                      f"target eps holds only approximately (kernel='laplace' is exact)",
                      RuntimeWarning, stacklevel=3)
    return sampler
