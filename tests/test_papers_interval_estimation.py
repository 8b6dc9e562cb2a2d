"""Naldi & D'Acquisto Figs. 1-2 (statpriv.papers.interval_estimation): the data
against the closed forms written out here, and each figure rendered once."""
import math

import numpy as np
import pytest
from scipy import stats

from statpriv.papers import figures
from statpriv.papers.interval_estimation import epsilon_vs_count_data, iso_epsilon_data
from helpers import import_extra

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _gaussian_dp_delta(sigma, eps):
    """Phi(1/(2 sigma) - eps sigma) - e^eps Phi(-1/(2 sigma) - eps sigma)."""
    phi = stats.norm.cdf
    return phi(0.5 / sigma - eps * sigma) - math.exp(eps) * phi(-0.5 / sigma - eps * sigma)


def test_fig1_data_against_closed_forms():
    widths = np.array([0.013, 0.1, 0.2, 0.45])
    data = iso_epsilon_data(eps_values=(0.05, 0.0804718956), widths=widths)
    c = data["count"]
    assert c == 100
    for eps in data["eps"]:
        # Laplace, eq. (9): p = 1 - e^(-eps w c)
        np.testing.assert_allclose(data["confidence"]["laplace"][eps],
                                   -np.expm1(-eps * widths * c), rtol=1e-13)
        # geometric, alpha = e^-eps: P[|N| <= K-1] = 1 - 2 alpha^K / (1 + alpha), K = ceil(w c)
        alpha, k = math.exp(-eps), np.ceil(widths * c)
        np.testing.assert_allclose(data["confidence"]["geometric"][eps],
                                   1 - 2 * alpha ** k / (1 + alpha), rtol=1e-12)
        # Gaussian: p = 2 Phi(w c / sigma) - 1 with sigma (eps, 1e-6)-DP exactly
        p = data["confidence"]["gaussian"][eps]
        sigma = widths * c / stats.norm.ppf((1 + p) / 2)
        for s in sigma:
            assert _gaussian_dp_delta(s, eps) == pytest.approx(1e-6, rel=1e-6)
    # the paper's example lies on the eps = 0.0805 curve
    assert data["confidence"]["laplace"][0.0804718956][2] == pytest.approx(0.8, abs=1e-10)


def test_fig2_data_against_closed_forms():
    counts = np.array([10.0, 100.0, 2500.0])
    data = epsilon_vs_count_data(pairs=((0.2, 0.8), (0.3, 0.95)), counts=counts)
    for w, p in data["pairs"]:
        # eq. (10): eps = -ln(1 - p) / (w c), falling like 1/c
        np.testing.assert_allclose(data["eps"]["laplace"][(w, p)],
                                   -math.log1p(-p) / (w * counts), rtol=1e-13)
        # geometric: the eps whose confidence is exactly p
        eps = data["eps"]["geometric"][(w, p)]
        k = np.ceil(w * counts)
        np.testing.assert_allclose(1 - 2 * np.exp(-eps * k) / (1 + np.exp(-eps)), p, rtol=1e-9)
        # Gaussian needs more eps than Laplace for the same interval at delta = 1e-6
        assert np.all(data["eps"]["gaussian"][(w, p)] > data["eps"]["laplace"][(w, p)])
    assert data["eps"]["laplace"][(0.2, 0.8)][1] == pytest.approx(0.0804718956, rel=1e-9)


# rendering costs ~0.8 s a figure: the data above is checked in the default run
@pytest.mark.exhaustive
@pytest.mark.parametrize("name", ["naldi_dacquisto_fig1", "naldi_dacquisto_fig2"])
def test_figure_renders(tmp_path, name):
    import_extra("matplotlib")
    paths = figures.make_figures(tmp_path, which=[name], dpi=40)
    assert list(paths) == [name]
    with open(paths[name], "rb") as fh:
        assert fh.read(8) == PNG_MAGIC
    assert [f.name for f in tmp_path.iterdir()] == [f"{name}.png"]
