"""The command line: JSON out, errors to stderr with status 2, and the demo."""
import json
import os
import subprocess
import sys

import pytest

import statpriv


def run(tmp_path, *args):
    # Run from an empty directory, importing the same statpriv as this process.
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(statpriv.__file__)))
    return subprocess.run([sys.executable, "-m", "statpriv", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)


def test_delta_json(tmp_path):
    out = run(tmp_path, "delta", "--n", "1000", "--pi", "0.5", "--eps", "0.01")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    curve = statpriv.counting(1000, 0.5)
    assert data["delta"] == curve.delta(0.01)
    assert data["delta_plus"] == curve.delta_plus(0.01)
    assert data["log_delta"] == curve.log_delta(0.01)
    assert data["n"] == 1000 and data["pi"] == 0.5 and data["eps"] == 0.01


def test_delta_json_underflow_keeps_log(tmp_path):
    out = run(tmp_path, "delta", "--n", "10000000", "--pi", "0.3", "--eps", "0.05")
    data = json.loads(out.stdout)
    assert data["delta"] == 0.0
    assert data["log_delta"] == pytest.approx(-2606.30559218798859, abs=1e-9)


def test_epsilon_json_with_sample(tmp_path):
    out = run(tmp_path, "epsilon", "--n", "100000", "--pi", "0.3", "--delta", "1e-6",
              "--sample-size", "5000")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["eps"] == statpriv.counting(100000, 0.3, sample_size=5000).epsilon(1e-6)
    assert data["delta"] <= 1e-6


def test_bad_input_exit_status(tmp_path):
    out = run(tmp_path, "delta", "--n", "10", "--pi", "2", "--eps", "0.1")
    assert out.returncode == 2
    assert "pi must be in [0.0, 1.0]" in out.stderr
    assert out.stdout == ""


def test_demo(tmp_path):
    out = run(tmp_path, "demo")
    assert out.returncode == 0, out.stderr
    assert "referendum" in out.stdout and "worst-case DP" in out.stdout
    assert "1.07e-10" in out.stdout   # delta(0.01) of 10^6 votes, pi = 0.5
