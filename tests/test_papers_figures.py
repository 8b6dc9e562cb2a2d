"""statpriv.figures: the papers' figures' data (checked independently) and the PNG files.

The data functions need no matplotlib; the PNG tests are skipped without it
(it is the optional extra plot).
"""
import math
import sys

import numpy as np
import pytest
from scipy import stats

from statpriv import counting, figures, reference
from helpers import DP_GAUSSIAN_AT_0_01, STATISTICAL_PRIVACY_VALUES, import_extra

DP_GAUSSIAN = dict(DP_GAUSSIAN_AT_0_01)
PUBLISHED = {(n, pi, eps): value for n, pi, eps, value in STATISTICAL_PRIVACY_VALUES}

_trapezoid = getattr(np, "trapezoid", None) or np.trapz     # numpy < 2 has only trapz


# -- independent evaluations ---------------------------------------------------
def _dp_gaussian(sigma, eps):
    """Phi(1/(2 sigma) - eps sigma) - e^eps Phi(-1/(2 sigma) - eps sigma) (docs/mathematics.md §6)."""
    phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0))
    return phi(0.5 / sigma - eps * sigma) - math.exp(eps) * phi(-0.5 / sigma - eps * sigma)


def _sp_by_quadrature(n, pi, eps, kernel, support, h=0.004):
    """max over directions of int (f(x-1) - e^eps f(x))_+ dx, f = Bin(n-1, pi) * kernel,
    by the trapezoid rule on a grid of step h that contains every integer."""
    k = np.arange(n)
    pmf = stats.binom.pmf(k, n - 1, pi)
    keep = pmf > 1e-18 * pmf.max()
    k, pmf = k[keep], pmf[keep]
    lo, hi = k[0] - support, k[-1] + 1 + support
    x = np.arange(round(lo / h), round(hi / h) + 1) * h
    f = np.zeros_like(x)
    f_shift = np.zeros_like(x)
    for kk, w in zip(k, pmf):
        f += w * kernel(x - kk)
        f_shift += w * kernel(x - 1 - kk)
    plus = _trapezoid(np.maximum(f_shift - math.exp(eps) * f, 0.0), x)
    minus = _trapezoid(np.maximum(f - math.exp(eps) * f_shift, 0.0), x)
    return max(plus, minus)


def _gauss_kernel(sigma):
    return lambda u: np.exp(-0.5 * (u / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))


def _laplace_kernel(b):
    return lambda u: np.exp(-np.abs(u) / b) / (2 * b)


# -- the printed numbers -------------------------------------------------------
def test_figure_numbers_reproduce_printed_dp_values():
    nums = figures.figure_numbers()
    assert nums["dp_gaussian_nu1"] == pytest.approx(float(DP_GAUSSIAN[1.0]), rel=1e-13)
    assert nums["dp_gaussian_nu3"] == pytest.approx(float(DP_GAUSSIAN[3.0]), rel=1e-13)
    assert round(nums["dp_gaussian_nu1"], 2) == 0.38          # as the paper prints them
    assert round(nums["dp_gaussian_nu3"], 3) == 0.128
    # Laplace DP (Breutigam & Reischuk Lemma 5 / docs/mathematics.md §6): 1 - exp((eps - 1/b)/2)
    assert nums["dp_laplace_nu1"] == pytest.approx(-math.expm1((0.01 - 1.0) / 2), rel=1e-13)
    # Breutigam & Reischuk §4.4: eps = sqrt(2/(pi(1-pi))) sqrt(lambda/(n-m)) at pi = 1/2, lambda = 0.1
    assert nums["equal_utility_laplace_eps_rate01_pi05"] == pytest.approx(
        math.sqrt(8.0) * math.sqrt(0.1 / 900), rel=1e-13)
    # docs/mathematics.md §3 reference value for the noiseless count
    assert nums["sp_noiseless_pi05"] == pytest.approx(float(PUBLISHED[1000, 0.5, 0.01]), rel=1e-12)


# -- figure data against independent checks -------------------------------------
def test_fig2_ratio_gaussian_independent():
    data = figures.ratio_vs_nu_data("gaussian", pis=(0.1,), nus=[3.0])
    sp = _sp_by_quadrature(1000, 0.1, 0.01, _gauss_kernel(3.0), support=40.0)
    dp_val = _dp_gaussian(3.0, 0.01)
    assert data["dp"][0] == pytest.approx(dp_val, rel=1e-13)
    assert data["sp"][0.1][0] == pytest.approx(sp, rel=1e-6)
    assert data["ratio"][0.1][0] == pytest.approx(dp_val / sp, rel=1e-6)
    # Lemma 6: a Gaussian mechanism with sigma_eff^2 = (n-1) pi (1-pi) + nu^2
    sigma_eff = math.sqrt(999 * 0.1 * 0.9 + 9.0)
    assert data["normal_sp"][0.1][0] == pytest.approx(_dp_gaussian(sigma_eff, 0.01), rel=1e-12)


def test_fig4_ratio_laplace_independent():
    data = figures.ratio_vs_nu_data("laplace", pis=(0.5,), nus=[2.0])
    sp = _sp_by_quadrature(1000, 0.5, 0.01, _laplace_kernel(2.0), support=80.0, h=0.002)
    dp_val = -math.expm1((0.01 - 0.5) / 2)
    assert data["dp"][0] == pytest.approx(dp_val, rel=1e-13)
    assert data["sp"][0.5][0] == pytest.approx(sp, rel=1e-6)
    assert data["normal_sp"] == {}                # Lemma 6 is Gaussian only


def test_fig6_against_mpmath_reference():
    data = figures.ratio_vs_nu_data("gaussian", n=100, pis=(0.1,), nus=[2.0])
    # precision="mp" routes through reference.noisy_counting_delta (statpriv.counting)
    ref = float(counting(100, 0.1, noise=figures.Gaussian(2.0)).delta(0.01, precision="mp"))
    assert data["sp"][0.1][0] == pytest.approx(ref, rel=1e-10)


def test_fig1_data_shape_and_limits():
    pis = [1e-4, 0.01, 0.1, 0.5]
    data = figures.noise_vs_pi_data("gaussian", pis=pis)
    for nu in (1.0, 3.0):
        sp = data["sp"][nu]
        assert sp.shape == (4,)
        assert np.all(sp <= data["dp"][nu] * (1 + 1e-12))    # SP never worse than DP
        assert np.all(np.diff(sp) < 0)                       # more data randomness helps
        assert sp[-1] == counting(1000, 0.5, noise=figures.Gaussian(nu)).delta(0.01)
    assert data["dp"][1.0] == pytest.approx(float(DP_GAUSSIAN[1.0]), rel=1e-13)


def test_fig5_equal_utility_data():
    data = figures.equal_utility_vs_pi_data(pis=[0.1, 0.5])
    n, m = 1000, 100
    for i, p in enumerate((0.1, 0.5)):
        loss = p * (1 - p) * (1 / m - 1 / n)
        assert data["laplace_scale"][i] == pytest.approx(n * math.sqrt(loss / 2), rel=1e-13)
        assert data["gaussian_sigma"][i] == pytest.approx(n * math.sqrt(loss), rel=1e-13)
    ref = float(reference.counting_delta(n, 0.5, 0.01, sample_size=m))
    assert data["subsampling"][1] == pytest.approx(ref, rel=1e-11)
    # Laplace of equal utility is (1/b, 0)-DP: zero for eps >= 1/b (Fig. 8, small lambda)
    low = figures.equal_utility_vs_rate_data(pi=0.5, sample_sizes=[10])
    assert 1.0 / low["laplace_scale"][0] < 0.01 and low["laplace"][0] == 0.0


def test_fig7_amplification_data():
    data = figures.amplification_data(sample_sizes=[100, 500, 1000])
    n, pi, eps = 1000, 0.5, 0.1
    rate = 0.1
    eps_prime = math.log1p(rate * math.expm1(eps))
    assert data["eps_prime"][0] == pytest.approx(eps_prime, rel=1e-14)
    samp = float(reference.counting_delta(n, pi, eps_prime, sample_size=100))
    bound = rate * float(reference.counting_delta(100, pi, eps))
    assert data["samp"][0] == pytest.approx(samp, rel=1e-11)
    assert data["bound"][0] == pytest.approx(bound, rel=1e-11)
    assert np.all(data["samp"] <= data["bound"] * (1 + 1e-12))
    assert data["samp"][-1] == pytest.approx(data["bound"][-1], rel=1e-12)   # lambda = 1


def test_nested_noise_data():
    data = figures.nested_noise_data(eps_values=[0.0, 0.2, 0.45, 0.6], n_values=[1, 100])
    alpha, p, n = data["alpha"], data["p"], data["n_unknown"]
    assert alpha == pytest.approx(math.exp(-0.5)) and p == 0.1 and n == 100
    # independent: exact convolution Bin(n-1, p) * two-sided geometric, in numpy
    ks = np.arange(-300, 301)
    geo = (1 - alpha) / (1 + alpha) * alpha ** np.abs(ks)
    z = np.convolve(stats.binom.pmf(np.arange(n), n - 1, p), geo)
    z_shift = np.concatenate([[0.0], z])
    z = np.concatenate([z, [0.0]])
    for e, got in zip(data["eps"], data["nested"]):
        want = max(np.maximum(z_shift - math.exp(e) * z, 0).sum(),
                   np.maximum(z - math.exp(e) * z_shift, 0).sum())
        assert got == pytest.approx(want, rel=1e-9, abs=1e-15)
    assert data["nested"][-1] == 0.0                             # eps >= eps0: pure DP
    assert np.all(data["nested"] <= data["post_processing_bound"] * (1 + 1e-12))
    # one unknown record (the target alone): the noise is all there is
    assert data["by_n_nested"][0] == pytest.approx(data["by_n_noise_only"], rel=1e-12)
    assert data["by_n_noiseless"][0] == 1.0


# -- the files -------------------------------------------------------------------
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.mark.exhaustive      # every figure: ~9 s; test_make_figures_which draws one by default
def test_make_figures_writes_every_png(tmp_path):
    import_extra("matplotlib")
    paths = figures.make_figures(tmp_path / "out", dpi=60)
    pk = {f"desfontaines_fig{k}" for k in range(2, 7)} | {
        "desfontaines_fig2_cases", "naldi_dacquisto_fig1", "naldi_dacquisto_fig2"}
    assert set(paths) == {f"fig{k}" for k in range(1, 9)} | pk
    assert sorted(f.name for f in (tmp_path / "out").iterdir()) == sorted(
        [f"breutigam_reischuk_fig{k}.png" for k in range(1, 9)] + [f"{name}.png" for name in pk])
    for name, path in paths.items():
        with open(path, "rb") as fh:
            head = fh.read(8)
        assert head == PNG_MAGIC, name
        assert (tmp_path / "out" / path.rsplit("/", 1)[-1]).stat().st_size > 5000, name


def test_make_figures_which(tmp_path):
    import_extra("matplotlib")
    paths = figures.make_figures(tmp_path, which=["fig7"], dpi=50)
    assert list(paths) == ["fig7"]
    assert [f.name for f in tmp_path.iterdir()] == ["breutigam_reischuk_fig7.png"]
    with pytest.raises(ValueError, match="fig9"):
        figures.make_figures(tmp_path, which=["fig9"])


# -- deprecated spellings (the old names appear here only to test that they still work) --
OLD_FIGURE_NAMES = {f"seed004_fig{k}": f"desfontaines_fig{k}" for k in range(2, 7)}
OLD_CONSTANTS = {"N_SEED": "N_RECORDS", "EPS_SEED": "EPS", "NUS_SEED": "NOISE_LEVELS",
                 "SEED004_P": "NESTED_P", "SEED004_N_UNKNOWN": "NESTED_N_UNKNOWN",
                 "SEED004_EPS0": "NESTED_EPS0", "SEED004_EPS_FIXED": "NESTED_EPS_FIXED"}


def test_old_function_names_warn_and_return_the_renamed_function():
    from statpriv.papers import partial_knowledge, thresholding
    homes = {"seed004_fig2": partial_knowledge, "seed004_fig3": partial_knowledge,
             "seed004_fig5": partial_knowledge, "seed004_fig4": thresholding,
             "seed004_fig6": figures}
    for old, new in OLD_FIGURE_NAMES.items():
        with pytest.warns(DeprecationWarning, match=f"{old} is deprecated: it is called {new}"):
            got = getattr(homes[old], old)
        assert got is getattr(homes[old], new)
        assert old not in homes[old].__all__ and new in homes[old].__all__
    with pytest.warns(DeprecationWarning, match="seed004_fig6"):
        from statpriv.papers.figures import seed004_fig6         # noqa: F401  the import form
    assert seed004_fig6 is figures.desfontaines_fig6


def test_old_constant_names_warn():
    expected = {"N_RECORDS": 1000, "EPS": 0.01, "NOISE_LEVELS": (1.0, 3.0), "NESTED_P": 0.1,
                "NESTED_N_UNKNOWN": 100, "NESTED_EPS0": 0.5, "NESTED_EPS_FIXED": 0.25}
    for old, new in OLD_CONSTANTS.items():
        assert getattr(figures, new) == expected[new]
        with pytest.warns(DeprecationWarning, match=f"{old} is deprecated"):
            assert getattr(figures, old) == expected[new]


def test_unknown_and_misplaced_names_are_attribute_errors():
    from statpriv.papers import partial_knowledge
    with pytest.raises(AttributeError, match="no attribute 'fig9'"):
        figures.fig9
    # a deprecated name exists only in the module that defines its new name
    with pytest.raises(AttributeError, match="seed004_fig6"):
        partial_knowledge.seed004_fig6


def test_old_keys_of_figures_table():
    for old, new in OLD_FIGURE_NAMES.items():
        assert old not in figures.FIGURES and new in figures.FIGURES
        with pytest.warns(DeprecationWarning, match=old):
            assert figures.FIGURES[old] is figures.FIGURES[new]
    with pytest.raises(KeyError):
        figures.FIGURES["fig9"]


# (4 s of drawing; the old names' mapping is checked without drawing below
# and through the command line in test_cli)
@pytest.mark.exhaustive
def test_make_figures_accepts_old_names(tmp_path):
    import_extra("matplotlib")
    with pytest.warns(DeprecationWarning, match="'seed004_fig4' is deprecated"):
        paths = figures.make_figures(tmp_path, which=["seed004_fig4"], dpi=40)
    assert list(paths) == ["desfontaines_fig4"]
    with pytest.warns(DeprecationWarning, match="seed004_fig4"):
        assert paths["seed004_fig4"] == paths["desfontaines_fig4"]
    assert [f.name for f in tmp_path.iterdir()] == ["desfontaines_fig4.png"]


def test_missing_matplotlib_names_the_extra(tmp_path, monkeypatch):
    for mod in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(ImportError, match=r'pip install "\.\[plot\]"'):
        figures.make_figures(tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_title_based_figure_names_still_work():
    # the figures were named after the papers' titles before their first authors
    old_names = {f"partial_knowledge_fig{k}": f"desfontaines_fig{k}" for k in range(2, 7)}
    for old, new in old_names.items():
        assert new in figures.FIGURES and old not in figures.FIGURES
        with pytest.warns(DeprecationWarning, match=f"'{old}' is deprecated: it is called '{new}'"):
            assert figures.FIGURES[old] is figures.FIGURES[new]
    from statpriv.papers import partial_knowledge
    with pytest.warns(DeprecationWarning, match="partial_knowledge_fig2_cases"):
        assert partial_knowledge.partial_knowledge_fig2_cases is \
            partial_knowledge.desfontaines_fig2_cases
