#!/usr/bin/python3
"""Slurm's job records as the integration tests read them (`scontrol -o show job ARRAY` lines; the
test clusters keep no accounting database for sacct): where and when each array task ran, and
which tasks held one node at the same time.

  slurm_records.py overlaps TASKS_FILE     prints "task I and task J on NODE" per overlapping pair
"""

import datetime
import sys


def read_tasks(path):
    """{array task id: (node list, start, end, OverSubscribe)}"""
    tasks = {}
    for line in open(path):
        f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
        if "ArrayTaskId" not in f:
            continue
        start, end = (datetime.datetime.fromisoformat(f[k]) for k in ("StartTime", "EndTime"))
        tasks[int(f["ArrayTaskId"])] = (f["NodeList"], start, end, f["OverSubscribe"])
    return tasks


def overlapping(spans):
    """spans: [(node, start, end, what)]; the pairs (what, what, node) on one node whose times overlap."""
    return [(a[3], b[3], a[0]) for k, a in enumerate(spans) for b in spans[k + 1:]
            if a[0] == b[0] and a[1] < b[2] and b[1] < a[2]]


def task_overlaps(tasks):
    return overlapping([(n, s, e, f"task {i}") for i, (n, s, e, _) in sorted(tasks.items())])


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "overlaps":
        sys.exit(__doc__)
    for a, b, node in task_overlaps(read_tasks(sys.argv[2])):
        print(f"{a} and {b} on {node}")
