"""Change points of series, found by Apache Otava (E-divisive means, Hunter's split and merge).

Reads JSON on stdin:
    {"maxPValue": 0.001, "minMagnitude": 0.05, "windowLen": 50,
     "series": [{"id": "any text", "values": [1.0, 1.1, ...]}, ...]}
("windowLen" absent: Otava's default) and writes JSON on stdout:
    {"otava": "0.8.0", "windowLen": 50,
     "series": [{"id": ..., "changes": [{"index": 12, "meanBefore": 1.0, "meanAfter": 1.1,
                                         "pValue": 0.0001}, ...]}, ...]}
where "index" is the first point after the change. Bad input: a message on stderr, exit 2;
Otava not installed: a message on stderr, exit 3. Run by `proxybench changes` (src/changes/otava.ts)
with the Python of .tools/venv, where scripts/setup.sh installs the pinned Otava.
"""

import json
import math
import sys
from importlib import metadata

try:
    from otava.series import AnalysisOptions, Metric, Series
except ImportError as err:
    sys.stderr.write(f"Apache Otava is not installed for {sys.executable} ({err})\n")
    sys.exit(3)


def fail(message):
    sys.stderr.write(f"{message}\n")
    sys.exit(2)


def read_request():
    try:
        request = json.load(sys.stdin)
    except json.JSONDecodeError as err:
        fail(f"stdin: not JSON ({err})")
    if not isinstance(request, dict) or not isinstance(request.get("series"), list):
        fail('stdin: expected an object with a "series" list')
    for number in ("maxPValue", "minMagnitude"):
        if not isinstance(request.get(number), (int, float)):
            fail(f'stdin: "{number}" must be a number')
    for entry in request["series"]:
        values = entry.get("values") if isinstance(entry, dict) else None
        if not isinstance(values, list) or not all(
            isinstance(v, (int, float)) and math.isfinite(v) for v in values
        ):
            fail('stdin: each series needs "values", a list of finite numbers')
    return request


def options_of(request):
    options = AnalysisOptions()
    options.max_pvalue = float(request["maxPValue"])
    options.min_magnitude = float(request["minMagnitude"])
    if request.get("windowLen") is not None:
        options.window_len = int(request["windowLen"])
    return options


def changes_of(values, options):
    """Otava's change points of one series, through its Series API (as `otava analyze` does)."""
    series = Series(
        test_name="series",
        branch=None,
        time=list(range(len(values))),
        metrics={"value": Metric()},
        data={"value": [float(v) for v in values]},
        attributes={},
    )
    analyzed = series.analyze(options)
    return [
        {
            "index": int(cp.index),
            "meanBefore": float(cp.mean_before()),
            "meanAfter": float(cp.mean_after()),
            "pValue": float(cp.pvalue()),
        }
        for cp in analyzed.change_points["value"]
    ]


def main():
    request = read_request()
    options = options_of(request)
    result = [
        {"id": entry.get("id"), "changes": changes_of(entry["values"], options)}
        for entry in request["series"]
    ]
    json.dump(
        {"otava": metadata.version("apache-otava"), "windowLen": options.window_len, "series": result},
        sys.stdout,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
