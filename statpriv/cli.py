"""Command line: ``statpriv demo | delta | epsilon | figures``.

``delta`` and ``epsilon`` print one JSON object so that shell pipelines and
other languages can embed statpriv; errors go to stderr with exit status 2.
"""
import argparse
import json
import math
import sys

from statpriv import counting
from statpriv.noise import Gaussian, Geometric, Laplace

_NOISES = {"laplace": Laplace, "gaussian": Gaussian, "geometric": Geometric}


def _noise(text):
    """'laplace:3' -> Laplace(3.0); None -> None."""
    if text is None:
        return None
    kind, _, param = text.partition(":")
    if kind not in _NOISES or not param:
        raise ValueError(f"noise must be KIND:PARAM with KIND one of {', '.join(_NOISES)}, "
                         f"got {text!r}")
    try:
        value = float(param)
    except ValueError:
        raise ValueError(f"noise parameter must be a number, got {param!r}") from None
    return _NOISES[kind](value)


def _curve(args):
    return counting(args.n, args.pi, sample_size=args.sample_size, noise=_noise(args.noise))


def _finite_or_none(x):
    return x if math.isfinite(x) else None


def _cmd_delta(args):
    curve = _curve(args)
    eps = args.eps
    return {
        "n": args.n, "pi": args.pi, "sample_size": args.sample_size, "noise": args.noise,
        "eps": eps,
        "delta_plus": curve.delta_plus(eps), "delta_minus": curve.delta_minus(eps),
        "delta": curve.delta(eps),
        "log_delta": _finite_or_none(curve.log_delta(eps)),
        "log_delta_plus": _finite_or_none(curve.log_delta_plus(eps)),
        "log_delta_minus": _finite_or_none(curve.log_delta_minus(eps)),
    }


def _cmd_epsilon(args):
    curve = _curve(args)
    eps = curve.epsilon(args.delta)
    out = {"n": args.n, "pi": args.pi, "sample_size": args.sample_size, "noise": args.noise,
           "delta_target": args.delta, "eps": _finite_or_none(eps)}
    if math.isfinite(eps):
        out.update(delta_plus=curve.delta_plus(eps), delta_minus=curve.delta_minus(eps),
                   delta=curve.delta(eps), log_delta=_finite_or_none(curve.log_delta(eps)))
    return out


def _parser():
    parser = argparse.ArgumentParser(prog="statpriv", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="print delta at a few eps for realistic cases")
    fig = sub.add_parser("figures", help="write the seed figures as PNG files "
                                         '(needs matplotlib: pip install "statpriv[plot]")')
    fig.add_argument("--out", required=True, help="directory for the PNG files (created if missing)")
    fig.add_argument("--which", nargs="+", default=None, metavar="NAME",
                     help="only these figures: fig1 .. fig8, seed004_fig6 (default: all)")
    fig.add_argument("--dpi", type=int, default=120)
    for name, target, helptext in (("delta", "eps", "delta(eps) of a noiseless count"),
                                   ("epsilon", "delta", "smallest eps with delta(eps) <= delta")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--n", type=int, required=True, help="number of records (>= 1)")
        p.add_argument("--pi", type=float, required=True, help="P[record has the property]")
        p.add_argument("--" + target, type=float, required=True)
        p.add_argument("--sample-size", type=int, default=None, dest="sample_size",
                       help="count over a sample of this many records (without replacement)")
        p.add_argument("--noise", default=None, metavar="KIND:PARAM",
                       help="noise added to the count, in count units: laplace:SCALE, "
                            "gaussian:SIGMA or geometric:ALPHA")
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.command == "demo":
        from statpriv.demo import run
        run()
        return 0
    if args.command == "figures":
        from statpriv.figures import make_figures
        try:
            paths = make_figures(args.out, which=args.which, dpi=args.dpi)
        except (ImportError, ValueError) as exc:
            print(f"statpriv figures: {exc}", file=sys.stderr)
            return 2
        print(json.dumps(paths))
        return 0
    handler = _cmd_delta if args.command == "delta" else _cmd_epsilon
    try:
        result = handler(args)
    except ValueError as exc:
        print(f"statpriv {args.command}: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
