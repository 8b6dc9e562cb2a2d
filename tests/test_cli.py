"""The command line: JSON out, errors to stderr with status 2, and the demo."""
import io
import json
import os
import subprocess
import sys

import math

import pytest

import statpriv
from helpers import FAR_TAIL_LOG_DELTA, import_extra
from statpriv import cli
from statpriv.cli import main


def run(tmp_path, *args):
    # Run from an empty directory, importing the same statpriv as this process.
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(statpriv.__file__)))
    return subprocess.run([sys.executable, "-m", "statpriv", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def run_main(capsys, *argv):
    """statpriv.cli.main in this process: (exit status, stdout, stderr).  One test
    (test_subprocess_strict_json_and_negative_inf) runs the real `python -m statpriv`."""
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_delta_json(capsys):
    status, out, err = run_main(capsys, "delta", "--n", "1000", "--pi", "0.5", "--eps", "0.01")
    assert status == 0, err
    data = json.loads(out)
    curve = statpriv.counting(1000, 0.5)
    assert data["delta"] == curve.delta(0.01)
    assert data["delta_plus"] == curve.delta_plus(0.01)
    assert data["log_delta"] == curve.log_delta(0.01)
    assert data["n"] == 1000 and data["pi"] == 0.5 and data["eps"] == 0.01


def test_delta_json_underflow_keeps_log(capsys):
    _, out, _ = run_main(capsys, "delta", "--n", "10000000", "--pi", "0.3", "--eps", "0.05")
    data = json.loads(out)
    assert data["delta"] == 0.0
    assert data["log_delta"] == pytest.approx(float(dict(FAR_TAIL_LOG_DELTA)[10 ** 7]), abs=1e-9)


def test_epsilon_json_with_sample(capsys):
    status, out, err = run_main(capsys, "epsilon", "--n", "100000", "--pi", "0.3", "--delta",
                                "1e-6", "--sample-size", "5000")
    assert status == 0, err
    data = json.loads(out)
    assert data["eps"] == statpriv.counting(100000, 0.3, sample_size=5000).epsilon(1e-6)
    assert data["delta"] <= 1e-6


# The exit status 2, the message and the empty stdout of a bad pi: the first case
# of test_errors_are_one_line; the real process passes main's status on
# (test_subprocess_strict_json_and_negative_inf).


def test_demo(capsys):
    status, out, err = run_main(capsys, "demo")
    assert status == 0, err
    assert "referendum" in out and "worst-case DP" in out
    assert "1.07e-10" in out   # delta(0.01) of 10^6 votes, pi = 0.5


# -- strict JSON, one-line errors, negative values ----------------------------

def _no_constants(name):
    raise AssertionError(f"non-standard JSON constant {name} in the output")


def strict_loads(text):
    """json.loads that rejects Infinity / -Infinity / NaN (Python's default accepts them)."""
    return json.loads(text, parse_constant=_no_constants)


@pytest.mark.parametrize("eps_args,eps", [
    (["--eps", "inf"], math.inf), (["--eps", "-inf"], -math.inf), (["--eps=-inf"], -math.inf),
    (["--eps", "-0.5"], -0.5), (["--eps=-0.5"], -0.5), (["--eps", "-1e-3"], -1e-3),
    (["--eps", "-.25"], -0.25),
])
def test_delta_any_eps_strict_json(capsys, eps_args, eps):
    status, out, err = run_main(capsys, "delta", "--n", "50", "--pi", "0.3", *eps_args)
    assert status == 0, err
    data = strict_loads(out)
    curve = statpriv.counting(50, 0.3)
    assert data["delta"] == curve.delta(eps)
    assert data["delta_plus"] == curve.delta_plus(eps)
    # non-finite numbers are the strings "inf" / "-inf", their sign kept
    assert data["eps"] == (eps if math.isfinite(eps) else str(eps))
    assert data["log_delta"] == (curve.log_delta(eps) if eps != -math.inf else 0.0)


def test_infinite_results_are_signed_strings(capsys):
    # delta = 0 at finite eps (ln delta = -inf) and no finite eps for the target
    status, out, _ = run_main(capsys, "delta", "--n", "10", "--pi", "0.3", "--eps", "10",
                              "--sample-size", "5")
    data = strict_loads(out)
    assert status == 0 and data["delta"] == 0.0 and data["log_delta"] == "-inf"
    status, out, _ = run_main(capsys, "epsilon", "--n", "10", "--pi", "0.3", "--delta", "1e-30")
    data = strict_loads(out)
    assert status == 0 and data["eps"] == "inf" and "delta" not in data
    status, out, _ = run_main(capsys, "delta", "--n", "10", "--pi", "0.3", "--eps", "inf")
    assert strict_loads(out)["eps"] == "inf"
    status, out, _ = run_main(capsys, "delta", "--n", "10", "--pi", "0.3", "--eps", "-inf")
    assert strict_loads(out)["eps"] == "-inf"


def test_integer_options_accept_float_notation(capsys):
    status, out, err = run_main(capsys, "delta", "--n", "1e3", "--pi", "0.5", "--eps", "0.01")
    assert status == 0, err
    assert strict_loads(out)["delta"] == statpriv.counting(1000, 0.5).delta(0.01)


@pytest.mark.parametrize("argv,status,text", [
    (["delta", "--n", "10", "--pi", "2", "--eps", "0.1"], 2, "pi must be in [0.0, 1.0]"),
    (["delta", "--n", "10", "--pi", "0.3", "--eps", "nan"], 2, "eps must not contain NaN"),
    (["delta", "--n", "10", "--pi", "0.3"], 2, "required: --eps"),
    (["delta", "--n", "2.5", "--pi", "0.3", "--eps", "0.1"], 2, "expected an integer"),
    (["delta", "--n", "10", "--pi", "0.3", "--eps", "0.1", "--noise", "gaussian:-1"], 2,
     "sigma must be in (0.0, inf)"),
    (["delta", "--n", "10", "--pi", "0.3", "--eps", "0.1", "--sample-size", "-3"], 2,
     "sample_size must be an integer [1, 10]"),
    (["epsilon", "--n", "10", "--pi", "0.3", "--delta", "-inf"], 2, "delta must"),
    (["bogus"], 2, "invalid choice"),
])
def test_errors_are_one_line(capsys, argv, status, text):
    got, out, err = run_main(capsys, *argv)
    assert got == status
    assert out == ""
    assert text in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_figures_unwritable_out_is_one_line(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    for out_dir in (str(blocker / "x"), "/proc/nonexistent/x"):
        status, out, err = run_main(capsys, "figures", "--out", out_dir)
        assert status != 0 and out == ""
        assert err.startswith("statpriv figures: ") and err.count("\n") == 1, err
        assert "Traceback" not in err


def test_subprocess_strict_json_and_negative_inf(tmp_path, capsys):
    # the real `python -m statpriv` from an empty directory: output, exit status
    # (main's, passed on), one-line stderr
    out = run(tmp_path, "delta", "--n", "100", "--pi", "0.3", "--eps", "-inf")
    assert out.returncode == 0, out.stderr
    assert strict_loads(out.stdout)["delta"] == 1.0
    bad = run(tmp_path, "figures", "--out", "/proc/nonexistent/x")
    assert bad.returncode != 0 and bad.stdout == ""
    assert bad.returncode == run_main(capsys, "figures", "--out", "/proc/nonexistent/x")[0]
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


# (5 s of drawing; test_papers_figures draws the same through the API)
@pytest.mark.exhaustive
def test_figures_which_names_the_papers(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["figures", "--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "fig1 .. fig8 (Breutigam & Reischuk)" in out
    assert "desfontaines_fig2 .. desfontaines_fig6 (Desfontaines et al.)" in out
    import_extra("matplotlib")
    status, out, err = run_main(capsys, "figures", "--out", str(tmp_path), "--which", "fig7",
                                "desfontaines_fig3", "--dpi", "40")
    assert status == 0, err
    assert json.loads(out) == {"fig7": str(tmp_path / "breutigam_reischuk_fig7.png"),
                               "desfontaines_fig3": str(tmp_path / "desfontaines_fig3.png")}


def test_figures_which_old_name_still_works(capsys, tmp_path):
    import_extra("matplotlib")
    # seed004_fig3: the deprecated spelling of desfontaines_fig3
    with pytest.warns(DeprecationWarning, match="'seed004_fig3' is deprecated"):
        status, out, err = run_main(capsys, "figures", "--out", str(tmp_path), "--which",
                                    "seed004_fig3", "--dpi", "40")
    assert status == 0, err
    assert json.loads(out) == {"desfontaines_fig3": str(tmp_path / "desfontaines_fig3.png")}


@pytest.mark.parametrize("argv", [[], *([c] for c in cli.EXAMPLES),
                                  *(["dp", m] for m in ("gaussian", "laplace", "geometric"))])
def test_help_has_examples_and_the_infinity_strings(capsys, argv):
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "strict JSON" in out and '"inf", "-inf" and "nan"' in out
    # an example of the command itself ("statpriv dp gaussian --help": the dp examples)
    assert "example" in out and f"statpriv {' '.join(argv[:1])}".strip() + " " in out


# -- every command, the examples of --help and README, the JSON conventions --

def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"statpriv {statpriv.__version__}"


def _input_files(directory):
    """The files the examples read: pi.txt and releases.json."""
    (directory / "pi.txt").write_text("0.1\n0.5\n0.9\n0.3\n")
    (directory / "releases.json").write_text(
        '{"releases": [{"kind": "dp.gaussian", "sigma": 2.0, "times": 100}], "delta": 1e-6}')


def run_example(capsys, monkeypatch, example):
    argv, stdin = cli.example_argv(example)
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return run_main(capsys, *argv)


_JSON_EXAMPLES = [line for command, lines in cli.EXAMPLES.items()
                  if command not in ("demo", "figures", "empirical-demo") for line in lines]


@pytest.mark.parametrize("example", _JSON_EXAMPLES)
def test_help_examples_run(capsys, monkeypatch, tmp_path, example):
    _input_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    status, out, err = run_example(capsys, monkeypatch, example)
    assert status == 0, err
    for line in out.splitlines():          # accountant: one object a line
        assert isinstance(strict_loads(line), dict)


def _readme_cli_lines():
    readme = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")
    text = open(readme, encoding="utf-8").read()
    block = text.split("Command line (JSON out")[1].split("```")[1]
    return [line for line in block.splitlines() if "statpriv " in line]


def test_readme_examples_run(capsys, monkeypatch, tmp_path):
    _input_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    lines = _readme_cli_lines()
    assert len(lines) >= 8
    for line in lines:
        if line.split()[1] in ("figures", "empirical-demo"):
            continue            # matplotlib and the flights data: test_figures_*, test_empirical_*
        status, out, err = run_example(capsys, monkeypatch, line)
        assert status == 0, (line, err)
        strict_loads(out.splitlines()[-1])


def _balle_wang_delta(sigma, eps):
    """Gaussian mechanism, sensitivity 1 (Balle & Wang 2018, Thm. 8), from math.erfc."""
    def phi(x):
        return 0.5 * math.erfc(-x / math.sqrt(2.0))
    return phi(0.5 / sigma - eps * sigma) - math.exp(eps) * phi(-0.5 / sigma - eps * sigma)


@pytest.mark.parametrize("pi_arg", [
    ["--pi", "0.1,0.5,0.9,0.3"], ["--pi-file", "pi.txt"], ["--pi-file", "pi.npy"],
    ["--pi-file", "pi.csv", "--pi-column", "p"], ["--pi-file", "pi.csv", "--pi-column", "1"],
])
def test_per_record_pi(capsys, monkeypatch, tmp_path, pi_arg):
    import numpy as np
    pi = [0.1, 0.5, 0.9, 0.3]
    (tmp_path / "pi.txt").write_text("\n".join(map(str, pi)) + "\n")
    np.save(tmp_path / "pi.npy", np.array(pi))
    (tmp_path / "pi.csv").write_text("id,p\n" + "".join(f"{i},{p}\n" for i, p in enumerate(pi)))
    monkeypatch.chdir(tmp_path)
    status, out, err = run_main(capsys, "delta", *pi_arg, "--eps", "0.5")
    assert status == 0, err
    assert strict_loads(out)["delta"] == statpriv.counting(None, np.array(pi)).delta(0.5)
    # the same records with the property known to the attacker (pi = 0, 1) drop out
    status, out, _ = run_main(capsys, "delta", "--pi", "0.1,0.5,0.9,0.3,1,0", "--eps", "0.5")
    assert strict_loads(out)["delta"] == statpriv.counting(None, np.array(pi)).delta(0.5)


def test_per_record_pi_file_errors(capsys, monkeypatch, tmp_path):
    (tmp_path / "two.csv").write_text("a,b\n0.1,0.2\n0.3,0.4\n")
    (tmp_path / "words.txt").write_text("0.1\nabc\n")
    monkeypatch.chdir(tmp_path)
    for args, text in ((["--pi-file", "missing.txt"], "pi_file: cannot read 'missing.txt'"),
                       (["--pi-file", "two.csv"],
                        "pi_column is needed: 'two.csv' has 2 columns (a, b)"),
                       (["--pi-file", "two.csv", "--pi-column", "c"], "no column 'c'"),
                       (["--pi-file", "two.csv", "--pi-column", "5"],
                        "pi_column must be in [0, 1]"),
                       (["--pi-file", "words.txt"], "not a column of numbers"),
                       (["--pi", "0.5,1.5"], "pi must lie in [0.0, 1.0], got 1.5")):
        status, out, err = run_main(capsys, "delta", *args, "--eps", "0.1")
        assert status == 2 and out == "" and text in err, (args, err)
        assert err.count("\n") == 1


def test_sampling_options(capsys):
    # a rate without replacement is the sample size round(rate n)
    _, by_size, _ = run_main(capsys, "delta", "--n", "1000", "--pi", "0.3", "--eps", "0.05",
                             "--sample-size", "50")
    _, by_rate, _ = run_main(capsys, "delta", "--n", "1000", "--pi", "0.3", "--eps", "0.05",
                             "--sample-rate", "0.05")
    assert strict_loads(by_size)["delta"] == strict_loads(by_rate)["delta"] > 0
    status, out, err = run_main(capsys, "epsilon", "--n", "1000", "--pi", "0.3", "--delta", "1e-6",
                                "--sample-rate", "0.05", "--sampling", "poisson")
    assert status == 0, err
    poisson = statpriv.counting(1000, 0.3, sample_rate=0.05, sampling="poisson")
    data = strict_loads(out)
    assert data["eps"] == poisson.epsilon(1e-6) and data["sampling"] == "poisson"
    _, without, _ = run_main(capsys, "epsilon", "--n", "1000", "--pi", "0.3", "--delta", "1e-6",
                             "--sample-rate", "0.05")
    assert data["eps"] != strict_loads(without)["eps"]


def test_secret_sample(capsys):
    # Smith's example in secret_sample's docstring: delta = 0 from ln(31/21) on
    status, out, err = run_main(capsys, "secret-sample", "--n", "100", "--sample-size", "10",
                                "--positives", "30", "--delta", "0")
    assert status == 0, err
    assert strict_loads(out)["eps"] == pytest.approx(math.log(31 / 21), rel=1e-14)
    _, out, _ = run_main(capsys, "secret-sample", "--n", "100", "--sample-size", "10",
                         "--positives", "30", "--eps", "0.05", "--noise", "geometric:0.5")
    assert strict_loads(out)["delta"] == statpriv.secret_sample(
        100, 10, 30, noise=statpriv.Geometric(0.5)).delta(0.05)


def test_dp_curves(capsys):
    _, out, _ = run_main(capsys, "dp", "gaussian", "--sigma", "2", "--eps", "0.5")
    assert strict_loads(out)["delta"] == pytest.approx(_balle_wang_delta(2.0, 0.5), rel=1e-12)
    _, out, _ = run_main(capsys, "dp", "laplace", "--scale", "4", "--eps", "0.1")
    assert strict_loads(out)["delta"] == pytest.approx(1 - math.exp((0.1 - 0.25) / 2), rel=1e-14)
    _, out, _ = run_main(capsys, "dp", "geometric", "--alpha", "0.5", "--delta", "0")
    assert strict_loads(out)["eps"] == pytest.approx(math.log(2), rel=1e-15)
    # sensitivity, sampling and relation reach the factory
    _, out, _ = run_main(capsys, "dp", "laplace", "--scale", "10", "--sensitivity", "2",
                         "--sampling-prob", "0.1", "--relation", "replace_one", "--eps", "0.01")
    data = strict_loads(out)
    assert data["delta"] == statpriv.dp.laplace(10, 2, sampling_prob=0.1,
                                                relation="replace_one").delta(0.01) > 0
    assert data["relation"] == "replace_one" and data["sampling_prob"] == 0.1


def test_thresholded_k_anonymity_partial_knowledge(capsys):
    # the values of the docstrings (Desfontaines et al., Example 7 and Defs. 15-16, Thm 3)
    _, out, _ = run_main(capsys, "thresholded", "--n", "1000", "--pi", "1e-7", "--threshold",
                         "100", "--known", "100", "--attacker", "active", "--eps", "10")
    assert f"{strict_loads(out)['delta']:.6f}" == "0.999910"
    _, out, _ = run_main(capsys, "k-anonymity", "--n", "100", "--pi", "0.05,0.05,0.6", "--k", "5",
                         "--source", "0", "--target", "1", "--eps", "0.5")
    data = strict_loads(out)
    assert (f"{data['lower']['delta']:.6f}", f"{data['upper']['delta']:.6f}") == ("0.084612",
                                                                                 "0.097868")
    _, out, _ = run_main(capsys, "partial-knowledge", "--n", "1000", "--pi", "0.1", "--eps", "0.3")
    data = strict_loads(out)
    assert [f"{data[k]['delta']:.4g}" for k in ("uniform", "worst_case", "blanket")] == [
        "0.0001794", "0.0001806", "0.00106"]
    assert data["worst_case"]["delta_attained"] <= data["worst_case"]["delta_certified"]
    _, out, _ = run_main(capsys, "partial-knowledge", "--n", "1000", "--pi", "0.1",
                         "--categories", "3", "--eps", "0.3")
    data = strict_loads(out)
    hist = statpriv.histogram_partial_knowledge(1000, 0.1, 3)
    assert (data["lower"]["delta"], data["upper"]["delta"]) == (hist.lower.delta(0.3),
                                                               hist.upper.delta(0.3))
    status, out, err = run_main(capsys, "partial-knowledge", "--n", "1000", "--pi", "0.7",
                                "--eps", "0.3")
    assert status == 2 and "pi" in err and out == ""


# -- compose and the accountant -------------------------------------------------

def _compose(capsys, monkeypatch, document, *argv):
    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(document)))
    return run_main(capsys, "compose", *argv)


@pytest.mark.parametrize("sigma,k", [(20.0, 100), (4.0, 16)])
def test_compose_bracket_contains_the_exact_value(capsys, monkeypatch, sigma, k):
    # k x dp.gaussian(sigma) is dp.gaussian(sigma / sqrt(k)) exactly
    exact = statpriv.dp.gaussian(sigma / math.sqrt(k))
    doc = {"releases": [{"kind": "dp.gaussian", "sigma": sigma, "times": k}], "delta": 1e-9}
    status, out, err = _compose(capsys, monkeypatch, doc)
    assert status == 0, err
    data = strict_loads(out)
    lower, upper = data["eps_bounds"]
    assert lower <= exact.epsilon(1e-9) <= upper and upper - lower < 1e-4
    assert data["releases"] == k and data["delta"] == 1e-9
    # --eps replaces the document's target
    status, out, err = _compose(capsys, monkeypatch, doc, "--eps", "1")
    data = strict_loads(out)
    lower, upper = data["delta_bounds"]
    assert lower <= exact.delta(1.0) <= upper and "eps_bounds" not in data


def test_compose_several_kinds(capsys, monkeypatch, tmp_path):
    # 16 x gaussian(4) + 4 x gaussian(2): 1/sigma^2 adds up to 2, gaussian(1/sqrt(2))
    doc = {"releases": [{"kind": "dp.gaussian", "sigma": 4.0, "times": 16},
                        {"kind": "dp.gaussian", "sigma": 2.0, "times": 4}],
           "eps": 1.0, "delta": 1e-6}
    (tmp_path / "doc.json").write_text(json.dumps(doc))
    status, out, err = run_main(capsys, "compose", str(tmp_path / "doc.json"))
    assert status == 0, err
    data = strict_loads(out)
    exact = statpriv.dp.gaussian(1 / math.sqrt(2))
    assert data["delta_bounds"][0] <= exact.delta(1.0) <= data["delta_bounds"][1]
    assert data["eps_bounds"][0] <= exact.epsilon(1e-6) <= data["eps_bounds"][1]
    # other kinds, noise written both ways, a count with its factory's keywords
    doc = {"releases": [{"kind": "counting", "n": 1000, "pi": 0.5, "noise": "geometric:0.7"},
                        {"kind": "counting", "pi": [0.1, 0.5, 0.9], "sample_rate": 0.5,
                         "sampling": "poisson"},
                        {"kind": "counting", "n": 1000, "pi": 0.5, "noise": {"geometric": 0.7}},
                        {"kind": "secret_sample", "n": 100, "sample_size": 10, "positives": 30},
                        {"kind": "dp.laplace", "scale": 10, "sampling_prob": 0.5}],
           "eps": "inf"}
    status, out, err = _compose(capsys, monkeypatch, doc)
    assert status == 0, err
    data = strict_loads(out)
    assert data["eps"] == "inf" and data["releases"] == 5 and data["delta_bounds"][1] >= 0


@pytest.mark.parametrize("document,text", [
    ('{"releases": [{"kind": "dp.gauss", "sigma": 1}], "delta": 1e-6}',
     "releases[0]: kind must be one of counting, secret_sample, dp.gaussian"),
    ('{"releases": [{"kind": "dp.gaussian", "sigma": 1}, {"kind": "dp.gaussian", "sigma": -2}], '
     '"delta": 1e-6}', "releases[1]: sigma must be in (0.0, inf), got -2.0"),
    ('{"releases": [{"kind": "dp.gaussian", "sigma": 1, "times": 0}], "delta": 1e-6}', "times"),
    ('{"releases": [{"kind": "dp.gaussian", "scale": 1}], "delta": 1e-6}', "scale"),
    ('{"releases": [{"kind": "dp.gaussian", "sigma": 1}]}', 'needs "eps" or "delta"'),
    ('{"releases": [{"kind": "dp.gaussian", "sigma": 1}], "eps": Infinity}',
     'Infinity is not strict JSON: write the string "inf"'),
    ('{"releases": [], "delta": 1e-6}', 'non-empty list "releases"'),
    ('{"releases": [{"kind": "dp.gaussian", "sigma": 1}], "delta": 1e-6, "deltas": 1}',
     "unknown keys deltas"),
    ('{"releases": [{"kind": "dp.gaussian", "sigma": 1}], "delta": 2}', "delta"),
    ('{"releases": [', "stdin is not JSON"),
])
def test_compose_errors_name_the_release_and_parameter(capsys, monkeypatch, document, text):
    monkeypatch.setattr(sys, "stdin", io.StringIO(document))
    status, out, err = run_main(capsys, "compose")
    assert status == 2 and out == ""
    assert err.startswith("statpriv compose: ") and text in err, err
    assert err.count("\n") == 1


def test_compose_missing_file_is_bad_input(capsys, tmp_path):
    status, out, err = run_main(capsys, "compose", str(tmp_path / "none.json"))
    assert status == 2 and out == "" and "cannot read" in err


def test_accountant_lines(capsys, monkeypatch):
    lines = ['{"kind": "dp.gaussian", "sigma": 4, "times": 8}', "",
             '{"kind": "dp.gaussian", "sigma": 4, "times": 8}']
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    status, out, err = run_main(capsys, "accountant", "--eps", "1")
    assert status == 0, err
    first, second = (strict_loads(line) for line in out.splitlines())
    assert (first["releases"], second["releases"], second["line"]) == (8, 16, 3)
    for data, sigma in ((first, 4 / math.sqrt(8)), (second, 1.0)):
        lower, upper = data["delta_bounds"]
        assert lower <= _balle_wang_delta(sigma, 1.0) <= upper
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"kind": "dp.gaussian", "sigma": 1,'
                                                  ' "relation": "replace_one"}\n'))
    status, out, err = run_main(capsys, "accountant", "--delta", "1e-6")
    assert status == 2 and "line 1: relation" in err


def test_accountant_reads_a_file(capsys, tmp_path):
    path = tmp_path / "releases.jsonl"
    path.write_text('{"kind": "dp.gaussian", "sigma": 2, "times": 2}\n')
    status, out, err = run_main(capsys, "accountant", str(path), "--delta", "1e-6")
    assert status == 0, err
    lower, upper = strict_loads(out)["eps_bounds"]
    assert lower <= statpriv.dp.gaussian(math.sqrt(2)).epsilon(1e-6) <= upper
    status, out, err = run_main(capsys, "accountant", str(tmp_path / "none.jsonl"), "--eps", "1")
    assert status == 2 and "cannot read" in err and out == ""


# -- empirical-demo without matplotlib -----------------------------------------

def test_empirical_demo_without_matplotlib(capsys, monkeypatch, tmp_path):
    pd = import_extra("pandas")
    import numpy as np
    import statpriv.empirical.data
    # a small frame in the flights' long format instead of the 2013 flights (5 s to load)
    rng = np.random.default_rng(7)
    frame = pd.DataFrame([(day, f"N{plane}", rng.normal(plane, 3.0)) for day in range(1, 9)
                          for plane in range(12) for _ in range(2)], columns=["db", "id", "value"])
    monkeypatch.setattr(statpriv.empirical.data, "flights", lambda: frame)
    monkeypatch.setitem(sys.modules, "matplotlib", None)     # import matplotlib -> ImportError
    status, out, err = run_main(capsys, "empirical-demo", "--out", str(tmp_path))
    assert status == 0, err
    assert "192 flights, 8 days (databases), 12 aircraft" in out
    assert "the ten most exposed aircraft" in out
    assert out.rstrip().endswith('plots not written: they need matplotlib (pip install ".[plot]")')
    assert list(tmp_path.iterdir()) == []
    # figures cannot do without it: exit status 1, the same hint
    status, out, err = run_main(capsys, "figures", "--out", str(tmp_path / "figs"))
    assert status == 1 and out == "" and 'pip install ".[plot]"' in err
