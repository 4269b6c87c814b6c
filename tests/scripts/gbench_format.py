"""What Google Benchmark's tools/compare.py expects of a JSON file, written from Google
Benchmark's documentation, not from its code: docs/user_guide.md "Output Formats" and
docs/json_format.md (the reporter's `context` and `benchmarks`), docs/tools.md (how compare.py
matches and compares entries).

load() reads a file as compare.py's `benchmarks` mode loads a JSON input and checks every key
that compare.py and its report read; difference() pairs two loaded files as compare.py does and
computes its `(new - old) / |old|` changes.
"""

import json
import math

TIME_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
RUN_TYPES = ("iteration", "aggregate")

# Keys of every entry and their types (json_format.md "Fields present on every result", "Timing
# and iteration metrics").
ENTRY_KEYS = {
    "name": str, "family_index": int, "per_family_instance_index": int, "run_name": str,
    "run_type": str, "repetitions": int, "threads": int, "iterations": int,
    "real_time": (int, float), "cpu_time": (int, float), "time_unit": str,
}
ITERATION_KEYS = {"repetition_index": int}
AGGREGATE_KEYS = {"aggregate_name": str, "aggregate_unit": str}
CONTEXT_KEYS = {
    "date": str, "host_name": str, "executable": str, "num_cpus": int, "mhz_per_cpu": int,
    "caches": list, "load_avg": list, "library_build_type": str,
}


class FormatError(ValueError):
    """The file is not what compare.py reads."""


def _check_keys(obj, keys, where):
    for key, kind in keys.items():
        if key not in obj:
            raise FormatError(f"{where}: no '{key}'")
        value = obj[key]
        if isinstance(value, bool) or not isinstance(value, kind):
            raise FormatError(f"{where}: '{key}' is {value!r}, not {kind}")


def check(doc, where="document"):
    """Raises FormatError unless `doc` is a Google Benchmark JSON document compare.py reads."""
    if not isinstance(doc, dict):
        raise FormatError(f"{where}: not a JSON object")
    for top in ("context", "benchmarks"):
        if top not in doc:
            raise FormatError(f"{where}: no '{top}'")  # compare.py: KeyError: 'benchmarks'
    context = doc["context"]
    _check_keys(context, CONTEXT_KEYS, f"{where}: context")
    if context.get("json_schema_version", 1) != 1:
        raise FormatError(f"{where}: json_schema_version {context['json_schema_version']}, expected 1")
    if context["library_build_type"] not in ("release", "debug"):
        raise FormatError(f"{where}: library_build_type {context['library_build_type']!r}")
    if not isinstance(doc["benchmarks"], list):
        raise FormatError(f"{where}: 'benchmarks' is not a list")
    for i, entry in enumerate(doc["benchmarks"]):
        here = f"{where}: benchmarks[{i}]"
        if not isinstance(entry, dict):
            raise FormatError(f"{here}: not an object")
        _check_keys(entry, ENTRY_KEYS, here)
        if entry["run_type"] not in RUN_TYPES:
            raise FormatError(f"{here}: run_type {entry['run_type']!r}")
        if entry["time_unit"] not in TIME_UNITS:
            raise FormatError(f"{here}: time_unit {entry['time_unit']!r}")
        if entry["run_type"] == "iteration":
            _check_keys(entry, ITERATION_KEYS, here)
        else:
            _check_keys(entry, AGGREGATE_KEYS, here)
            if entry["aggregate_unit"] not in ("time", "percentage"):
                raise FormatError(f"{here}: aggregate_unit {entry['aggregate_unit']!r}")
            if entry["name"] != f"{entry['run_name']}_{entry['aggregate_name']}":
                raise FormatError(f"{here}: an aggregate is named <run_name>_<aggregate_name>")
        for key in ("real_time", "cpu_time"):
            if not math.isfinite(entry[key]):
                raise FormatError(f"{here}: {key} is not finite")
    return doc


def load(path):
    with open(path, encoding="utf-8") as fh:
        return check(json.load(fh), path)


def ordered(doc):
    """The entries in the order compare.py reports them: by family, instance, iterations before
    aggregates, repetition (the sort is stable, so aggregates keep their order)."""
    return sorted(doc["benchmarks"], key=lambda b: (
        b["family_index"], b["per_family_instance_index"], b["run_type"] == "aggregate",
        b.get("repetition_index", -1)))


def seconds(entry, key="real_time"):
    return entry[key] * TIME_UNITS[entry["time_unit"]]


def change(old, new):
    """compare.py's Time and CPU columns: (new - old) / |old|."""
    if old == 0:
        return 0.0 if new == 0 else float("inf")
    return (new - old) / abs(old)


def difference(base, new, aggregates_only=False):
    """Per name of `base` (first appearance order), the entries of both files of that name and the
    same time_unit, paired in order; a name only in one file is omitted, as compare.py omits it.
    `aggregates_only` keeps the aggregate rows only, as compare.py's --display_aggregates_only.
    Returns [{name, run_type, aggregate_name, pairs: [(old_real, new_real, time_change,
    cpu_change)], base_times, new_times}]."""
    out, seen = [], set()
    base_entries, new_entries = ordered(base), ordered(new)
    for entry in base_entries:
        name = entry["name"]
        if name in seen or (aggregates_only and entry["run_type"] != "aggregate"):
            continue
        seen.add(name)
        unit = entry["time_unit"]
        lhs = [b for b in base_entries if b["name"] == name and b["time_unit"] == unit]
        rhs = [b for b in new_entries if b["name"] == name and b["time_unit"] == unit]
        if not rhs:
            continue
        pairs = [(a["real_time"], b["real_time"], change(a["real_time"], b["real_time"]),
                  change(a["cpu_time"], b["cpu_time"])) for a, b in zip(lhs, rhs)]
        out.append({"name": name, "run_type": entry["run_type"],
                    "aggregate_name": entry.get("aggregate_name", ""), "pairs": pairs,
                    "base_times": [b["real_time"] for b in lhs],
                    "new_times": [b["real_time"] for b in rhs]})
    return out
