"""One curve queried from 8 threads gives bit-identical results."""
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import statpriv


def test_eight_threads_bit_identical():
    curves = [statpriv.counting(10**6, 0.3), statpriv.counting(1000, 0.4, sample_size=100),
              statpriv.dp.gaussian(2.0)]
    eps = np.linspace(-0.5, 2.0, 400)
    targets = np.logspace(-12, -1, 20)
    for curve in curves:
        expected = (curve.log_delta(eps).tobytes(), curve.epsilon(targets).tobytes())

        def work(_):
            return [(curve.log_delta(eps).tobytes(), curve.epsilon(targets).tobytes())
                    for _ in range(5)]

        with ThreadPoolExecutor(max_workers=8) as pool:
            results = [r for batch in pool.map(work, range(8)) for r in batch]
        assert len(results) == 40
        assert all(r == expected for r in results)
