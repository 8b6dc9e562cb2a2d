"""Command line: ``statpriv demo | delta | epsilon``.

``delta`` and ``epsilon`` print one JSON object so that shell pipelines and
other languages can embed statpriv; errors go to stderr with exit status 2.
"""
import argparse
import json
import math
import sys

from statpriv import counting


def _curve(args):
    return counting(args.n, args.pi, sample_size=getattr(args, "sample_size", None))


def _finite_or_none(x):
    return x if math.isfinite(x) else None


def _cmd_delta(args):
    curve = _curve(args)
    eps = args.eps
    return {
        "n": args.n, "pi": args.pi, "sample_size": args.sample_size, "eps": eps,
        "delta_plus": curve.delta_plus(eps), "delta_minus": curve.delta_minus(eps),
        "delta": curve.delta(eps),
        "log_delta": _finite_or_none(curve.log_delta(eps)),
        "log_delta_plus": _finite_or_none(curve.log_delta_plus(eps)),
        "log_delta_minus": _finite_or_none(curve.log_delta_minus(eps)),
    }


def _cmd_epsilon(args):
    curve = _curve(args)
    eps = curve.epsilon(args.delta)
    out = {"n": args.n, "pi": args.pi, "sample_size": args.sample_size,
           "delta_target": args.delta, "eps": _finite_or_none(eps)}
    if math.isfinite(eps):
        out.update(delta_plus=curve.delta_plus(eps), delta_minus=curve.delta_minus(eps),
                   delta=curve.delta(eps), log_delta=_finite_or_none(curve.log_delta(eps)))
    return out


def _parser():
    parser = argparse.ArgumentParser(prog="statpriv", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="print delta at a few eps for realistic cases")
    for name, target, helptext in (("delta", "eps", "delta(eps) of a noiseless count"),
                                   ("epsilon", "delta", "smallest eps with delta(eps) <= delta")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--n", type=int, required=True, help="number of records (>= 1)")
        p.add_argument("--pi", type=float, required=True, help="P[record has the property]")
        p.add_argument("--" + target, type=float, required=True)
        p.add_argument("--sample-size", type=int, default=None, dest="sample_size",
                       help="count over a sample of this many records (without replacement)")
    return parser


def main(argv=None):
    args = _parser().parse_args(argv)
    if args.command == "demo":
        from statpriv.demo import run
        run()
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
