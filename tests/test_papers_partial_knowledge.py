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
    for name in ("partial_knowledge_fig2", "partial_knowledge_fig3", "partial_knowledge_fig5"):
        assert figures.FIGURES[name] is getattr(pkfig, name)
