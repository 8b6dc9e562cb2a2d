"""The command line: JSON out, errors to stderr with status 2, and the demo."""
import json
import os
import subprocess
import sys

import math

import pytest

import statpriv
from helpers import FAR_TAIL_LOG_DELTA, import_extra
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


# -- issue 12: strict JSON, one-line errors, negative values ------------------

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
    # non-finite numbers are written as null
    assert data["eps"] == (eps if math.isfinite(eps) else None)


def test_null_for_infinite_results(capsys):
    # delta = 0 at finite eps (ln delta = -inf) and no finite eps for the target
    status, out, _ = run_main(capsys, "delta", "--n", "10", "--pi", "0.3", "--eps", "10",
                              "--sample-size", "5")
    data = strict_loads(out)
    assert status == 0 and data["delta"] == 0.0 and data["log_delta"] is None
    status, out, _ = run_main(capsys, "epsilon", "--n", "10", "--pi", "0.3", "--delta", "1e-30")
    data = strict_loads(out)
    assert status == 0 and data["eps"] is None and "delta" not in data


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


def test_figures_which_names_the_papers(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:
        main(["figures", "--help"])
    assert exc.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "fig1 .. fig8 (Breutigam & Reischuk)" in out
    assert "partial_knowledge_fig2 .. partial_knowledge_fig6 (Desfontaines et al.)" in out
    import_extra("matplotlib")
    status, out, err = run_main(capsys, "figures", "--out", str(tmp_path), "--which", "fig7",
                                "partial_knowledge_fig3", "--dpi", "40")
    assert status == 0, err
    assert json.loads(out) == {"fig7": str(tmp_path / "statistical_privacy_fig7.png"),
                               "partial_knowledge_fig3": str(tmp_path / "partial_knowledge_fig3.png")}


def test_figures_which_old_name_still_works(capsys, tmp_path):
    import_extra("matplotlib")
    # seed004_fig3: the deprecated spelling of partial_knowledge_fig3
    with pytest.warns(DeprecationWarning, match="'seed004_fig3' is deprecated"):
        status, out, err = run_main(capsys, "figures", "--out", str(tmp_path), "--which",
                                    "seed004_fig3", "--dpi", "40")
    assert status == 0, err
    assert json.loads(out) == {"partial_knowledge_fig3": str(tmp_path / "partial_knowledge_fig3.png")}


def test_help_documents_null(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["delta", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "strict JSON" in out and "null" in out
