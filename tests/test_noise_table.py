"""The one table of noise kinds (statpriv.noise.NOISE_KINDS): every reader
(the command line, statpriv.interval, statpriv.utility) takes its kinds from
it, and each class carries what they need."""
import math

import pytest

import statpriv
from statpriv import cli
from statpriv.analysis import interval, utility
from statpriv.noise import NOISE_KINDS, Noise


def test_table_holds_the_public_classes():
    assert NOISE_KINDS == {"laplace": statpriv.Laplace, "gaussian": statpriv.Gaussian,
                           "geometric": statpriv.Geometric}
    for kind, cls in NOISE_KINDS.items():
        assert issubclass(cls, Noise) and cls.kind == kind
        assert getattr(cls(0.5), cls.param_name) == 0.5


@pytest.mark.parametrize("kind", sorted(NOISE_KINDS))
def test_cli_reads_the_table(kind):
    assert cli._noise(f"{kind}:0.5") == NOISE_KINDS[kind](0.5)
    assert f"{kind}:{NOISE_KINDS[kind].param_name.upper()}" in cli._noise_forms()


def test_interval_and_utility_read_the_table():
    assert sorted(interval.NOISE_KINDS) == sorted(NOISE_KINDS)
    for kind, cls in NOISE_KINDS.items():
        delta = None if cls.pure_dp else 1e-6
        noise = statpriv.interval_noise(0.2, 0.8, 100.0, cls)
        assert type(noise) is cls
        # the noise meets the interval target: its eps has confidence 0.8
        eps = statpriv.interval_epsilon(0.2, 0.8, 100.0, cls, delta)
        assert math.isclose(statpriv.interval_confidence(eps, 0.2, 100.0, cls, delta), 0.8,
                            rel_tol=1e-9)
    assert set(utility._EQUAL_UTILITY_KINDS) == {k for k, c in NOISE_KINDS.items()
                                                 if c._variance_factor is not None}
    for kind in utility._EQUAL_UTILITY_KINDS:
        noise = statpriv.equal_utility_noise(1000, 0.3, 100, NOISE_KINDS[kind])
        assert math.isclose(noise.variance, NOISE_KINDS[kind]._variance_factor * noise.param ** 2)
