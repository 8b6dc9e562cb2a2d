"""statpriv.papers.partial_knowledge: the data of Desfontaines et al. Figs 2, 3, 5
(small grids; the PNG files only where matplotlib is installed)."""
import numpy as np
import pytest

from statpriv.papers import figures, partial_knowledge as pkfig


def test_fig2_data_orders_the_bounds():
    d = pkfig.thm3_vs_n_data(ns=np.array([50, 300, 2000]))
    assert np.all(d["uniform"] <= d["worst_case"] * (1 + 1e-12))
    assert np.all(d["worst_case"] <= d["blanket"] * (1 + 1e-12))
    assert np.all(d["blanket"] <= d["closed_form"])
    assert np.all(d["eps_worst_case"] <= d["eps_blanket"])
    assert np.all(d["eps_blanket"] <= d["eps_closed_form"])
    assert np.all(np.diff(d["worst_case"]) < 0)


def test_fig3_and_fig5_data():
    d = pkfig.known_records_data(n=200, ps=(0.5, 0.1), knowns=np.array([0, 100, 190]))
    for row in d["delta"].values():
        assert np.all(np.diff(row) > 0)              # more knowledge, less privacy
    assert np.all(d["delta"][0.5] < d["delta"][0.1])
    g = pkfig.double_guarantee_data(n=200, knowns=np.array([0, 150, 199]))
    assert np.all(g["uniform_noisy"] <= g["post_processing_bound"] * (1 + 1e-12))
    assert g["post_processing_bound"][-1] == g["noise_alone"]


def test_registered():
    for name in ("desfontaines_fig2", "desfontaines_fig3", "desfontaines_fig5"):
        assert figures.FIGURES[name] is getattr(pkfig, name)


def _poisson_binomial_delta(pis, eps):
    """max over directions of sum_k (z(k-1) - e^eps z(k))_+, z the Poisson-binomial pmf
    of the others' count by direct convolution (the definition, no statpriv)."""
    z = np.array([1.0])
    for q in pis:
        z = np.convolve(z, [1.0 - q, q])
    shifted = np.r_[0.0, z]
    z = np.r_[z, 0.0]
    plus = np.maximum(shifted - np.exp(eps) * z, 0.0).sum()
    minus = np.maximum(z - np.exp(eps) * shifted, 0.0).sum()
    return max(plus, minus)


def test_fig2_cases_exact_curves_and_thm3_above_them():
    eps = np.array([0.05, 0.2, 0.5])
    d = pkfig.thm3_cases_data(ns=(200, 1000), eps=eps)
    for case in (1, 2):
        pis = pkfig.case_probabilities(case, 200, d["p"])
        assert d["p"] == 0.05       # the paper's p for this figure
        assert len(pis) == 199 and d["p"] <= pis.min() and pis.max() <= 1 - d["p"]
        want = [_poisson_binomial_delta(pis, e) for e in eps]
        np.testing.assert_allclose(d["exact"][case][200], want, rtol=1e-9)
        for n in d["ns"]:
            # Thm 3 is a bound for every configuration in [p, 1-p]^N, and far above these
            assert np.all(d["exact"][case][n] <= d["blanket"][n])
            assert np.all(d["blanket"][n] <= d["closed_form"][n])
            # Prop. 7, a bound of the configuration itself: above it in both cases
            assert np.all(d["exact"][case][n] <= d["prop7"][case][n])
    assert list(pkfig.case_probabilities(1, 5, 0.1)) == [0.1, 0.5, 0.5, 0.5]
    np.testing.assert_allclose(pkfig.case_probabilities(2, 5, 0.1), [0.2, 0.4, 0.6, 0.8])
    # Case 1 has more randomness than Case 2 (most records at 1/2): lower exact curve
    assert np.all(d["exact"][1][1000] < d["exact"][2][1000])
    with pytest.raises(ValueError, match="case must be 1 or 2"):
        pkfig.case_probabilities(3, 10, 0.1)


@pytest.mark.exhaustive
def test_fig2_cases_renders(tmp_path):
    from helpers import import_extra
    import_extra("matplotlib")
    paths = figures.make_figures(tmp_path, which=["desfontaines_fig2_cases"], dpi=40)
    with open(paths["desfontaines_fig2_cases"], "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


def test_fig2_cases_numbers_quoted_in_the_docs():
    d = pkfig.thm3_cases_data(ns=(1000,), eps=[0.2, 0.5])
    np.testing.assert_allclose(d["exact"][1][1000], [1.55e-5, 3.75e-17], rtol=5e-3)
    np.testing.assert_allclose(d["exact"][2][1000], [8.75e-5, 1.37e-13], rtol=5e-3)
    np.testing.assert_allclose(d["blanket"][1000], [1.86e-2, 6.28e-4], rtol=5e-3)
    np.testing.assert_allclose(d["prop7"][1][1000], [8.72e-3, 2.58e-4], rtol=5e-3)
    assert d["prop7"][2][1000][0] == pytest.approx(0.90, abs=0.005)
    assert d["prop7"][2][1000][1] == 1.0
    assert list(d["closed_form"][1000]) == [1.0, 1.0]
    ratio = d["blanket"][1000][0] / d["exact"][1][1000][0], d["blanket"][1000][0] / d["exact"][2][1000][0]
    assert ratio == pytest.approx((1202, 213), rel=3e-3)
