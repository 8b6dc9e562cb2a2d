"""The typed loops of the Fourier-domain composition against plain Python
(statpriv.accounting.composition._fourier_kernels) and the FFT sizes."""

import numpy as np
import pytest
import scipy.special

from statpriv.accounting.composition import _fourier_kernels, fourier


def _python_power(z, k):
    """z^k by repeated squaring with Python complex numbers: the same products
    in the same order as the kernel promises."""
    result, base = None, z
    while True:
        if k & 1:
            result = base if result is None else result * base
        k >>= 1
        if not k:
            return result
        base = base * base


@pytest.mark.parametrize("k", [1, 2, 3, 1000, 12345])
def test_power_is_repeated_squaring_bit_for_bit(k):
    rng = np.random.default_rng(k)
    # (600 entries: two full blocks of the kernel and a partial one)
    z = (rng.random(600) - 0.5 + 1j * (rng.random(600) - 0.5)) * 1.4
    got = _fourier_kernels.power(z, k)
    want = np.array([_python_power(complex(x), k) for x in z])
    assert np.array_equal(got, want)


def test_tilted_sums_log_z_alone_is_the_same_and_right():
    rng = np.random.default_rng(7)
    mass = rng.random(5000)
    mass[rng.random(5000) < 0.2] = 0.0
    with np.errstate(divide="ignore"):
        log_mass = np.log(mass)
    thetas = np.array([-40.0, -1.0, 0.0, 0.5, 3.0, 60.0])
    h, offset = 1e-2, -2500
    full = _fourier_kernels.tilted_sums(mass, log_mass, offset, h, thetas, 700.0)
    alone = _fourier_kernels.tilted_sums(mass, log_mass, offset, h, thetas, 700.0, False)
    assert np.array_equal(full[0], alone[0])
    assert np.all(np.isnan(alone[1])) and np.all(np.isnan(alone[2]))
    x = (offset + np.arange(mass.size)) * h
    for theta, got in zip(thetas, full[0]):
        want = scipy.special.logsumexp(log_mass + theta * x)
        assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), theta


def test_fft_sizes_cover_the_window_from_a_coarse_set():
    sizes = [fourier.fft_size(p) for p in range(1, 3000)]
    sizes += [fourier.fft_size(p) for p in (392513, 2052334, 16_000_000)]
    points = list(range(1, 3000)) + [392513, 2052334, 16_000_000]
    for p, n in zip(points, sizes):
        assert n >= p
        if p > 64:
            assert n <= p * 1.125 + 1, (p, n)
            m = n
            for f in (2, 3, 5):
                while m % f == 0:
                    m //= f
            assert m == 1, (p, n)             # 5-smooth: pocketfft's fast radices
    # a window grown by a few points keeps its size
    assert fourier.fft_size(392513) == fourier.fft_size(392600) == 393216


@pytest.mark.parametrize("n, first", [(10, 3), (10, 7), (11, 5), (1, 0), (8, 0), (2 ** 16, 12345)])
def test_rotate_left_is_a_circular_shift_in_place(n, first):
    x = np.random.default_rng(n + first).standard_normal(n)
    expected = np.roll(x, -first)
    out = _fourier_kernels.rotate_left(x, first)
    assert out is x and np.array_equal(x, expected)


def test_rotate_left_refuses_a_shift_outside_the_array():
    with pytest.raises(ValueError, match="first"):
        _fourier_kernels.rotate_left(np.zeros(4), 4)
