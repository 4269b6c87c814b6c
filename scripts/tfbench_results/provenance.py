"""One-line and Markdown provenance of runs, for figure footers and reports."""

from collections import OrderedDict


def thread_summary(run):
    """'1 ok (kokkos 1, blas 1), 2 FAILED: <why>' over the run's workers."""
    parts = []
    for w in run.workers:
        state = "verified" if w.verified else "NOT verified"
        if not w.ok:
            state += f" ({w['exit']})"
        parts.append(f"{w['threads']}t {w['exec_space']} {state}: kokkos {w['kokkos_threads']}, "
                     f"blas {w['blas_threads']}")
    return "; ".join(parts) if parts else "no workers"


def short_rev(run):
    rev = str(run["git_revision"] or "unknown")
    return rev[:12] + ("+dirty" if run["git_dirty"] == "true" else "")


def run_line(run):
    date = str(run["start_utc"] or "?")
    return (f"run {run.id} ({run['status']}, {date}) | rev {short_rev(run)} | {run['hostname']} | "
            f"{run['cpu_model']}\n    {run['compiler'] or '?'} {run['build_type'] or ''} | "
            f"Kokkos {run['kokkos_version']} | {run['blas_vendor']} | threads {thread_summary(run)}")


def footer(files, max_runs=4):
    """Footer text for a figure drawn from one or more ResultFiles."""
    lines = []
    runs = [(f, r) for f in files for r in f.runs]
    for f, r in runs[:max_runs]:
        lines.append(run_line(r))
    if len(runs) > max_runs:
        lines.append(f"... and {len(runs) - max_runs} more run(s)")
    # Several runs of one revision/host (merged rounds or array tasks) read better collapsed.
    if len(runs) > 1:
        seen = OrderedDict()
        for _, r in runs:
            seen.setdefault((short_rev(r), r["hostname"], r["cpu_model"]), 0)
            seen[(short_rev(r), r["hostname"], r["cpu_model"])] += 1
        if len(seen) < len(runs) and len(seen) <= max_runs:
            lines = [f"{n} run(s): rev {k[0]} | {k[1]} | {k[2]}" for k, n in seen.items()]
            lines.append("threads: " + "; ".join(sorted({thread_summary(r) for _, r in runs})))
            dates = sorted(str(r["start_utc"]) for _, r in runs)
            lines.append(f"{dates[0]} .. {dates[-1]}")
    return "\n".join(lines)


PROVENANCE_FIELDS = (
    ("run", None), ("status", "status"), ("revision", None), ("tfbench", "tfbench_version"),
    ("host", "hostname"), ("CPU", "cpu_model"), ("online CPUs", "online_cpus"),
    ("compiler", "compiler"), ("build", "build_type"), ("flags", "build_flags"),
    ("Kokkos", "kokkos_version"), ("Kokkos spaces", "kokkos_spaces"),
    ("Kokkos Kernels", "kokkos_kernels_version"), ("BLAS", "blas_vendor"),
    ("BLAS threading", "blas_threading"), ("config sha256", "config_sha256"),
    ("command", "command_line"), ("start", "start_utc"), ("end", "end_utc"),
    ("merged from", "merged_from"),
)


def markdown_table(runs_by_label):
    """A Markdown table with one column per labelled run: field | A | B ..."""
    labels = list(runs_by_label)
    out = ["| | " + " | ".join(labels) + " |", "|---" * (len(labels) + 1) + "|"]
    for name, attr in PROVENANCE_FIELDS + (("threads", None),):
        cells = []
        for label in labels:
            runs = runs_by_label[label]
            vals = []
            for r in runs:
                if name == "run":
                    v = r.id
                elif name == "revision":
                    v = short_rev(r)
                elif name == "threads":
                    v = thread_summary(r)
                else:
                    v = r[attr]
                vals.append("" if v is None else str(v))
            uniq = list(OrderedDict.fromkeys(vals))
            cell = "<br>".join(uniq[:3]) + (f"<br>(+{len(uniq) - 3} more)" if len(uniq) > 3 else "")
            cells.append(cell.replace("|", "\\|"))
        if any(cells):
            out.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(out)
