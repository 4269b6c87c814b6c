#!/usr/bin/env python3
"""PyTorch peer of the tfbench GPU families: scripts/numpy_peer.py's line protocol, served with torch.

The C++ side (workloads/src/peers/torch_runner.cpp) starts one of these per worker process with
$TFBENCH_TORCH_PYTHON or the first python3 on PATH, and speaks numpy_peer.py's protocol (see its
docstring; the loop, the field parsing and `release` are numpy_peer.py's own):

    hello                 -> ok torch=<v> cuda=<v|none> device=<cuda:0|cpu> name=<GPU or CPU name>
                             cpu_name=<CPU name> python=<v> executable=<sys.executable>
                             threads=<n> cpus=<affinity>
    threads n=<N>         -> ok requested=<N> verified=<torch.get_num_threads()> via=torch
    setup id=<k> op=<matmul|solve> dtype=<float64|float32> device=<cuda|cpu> file=<path> <op fields>
    run id=<k> / check id=<k> / release id=<k> / quit

Without torch, `hello` answers an error that names the interpreter (the C++ side records every torch
row as skipped with it). `hello`'s device is the one torch would choose (its CUDA device when it sees
one); `setup` places an operation where its `device` field says (the C++ side asks for the space of
the case: a host case's peer runs on the CPU even beside a GPU), and without the field on hello's
device; `device=cuda` where torch sees no CUDA device is an error. Operands are copied at setup from
the shared file into tensors on that device; one warm-up run at setup takes cuBLAS/cuSOLVER handle
creation and kernel loading out of the first sample. A run is timed with time.perf_counter_ns
around the call alone, on the GPU between two torch.cuda.synchronize(): the device's work is complete
inside the interval and nothing queued before it is. `check` copies the output back into the file.

Operations (operands column-major in the file, like the C++ variants):
    matmul  n, batch, ld, stride    C_i = A_i B_i: torch.bmm on [batch, n, n] tensors (compact on
                                    the device: the file's ld/stride padding stays in the file)
    solve   n, nrhs, batch          X_i = A_i^-1 B_i: torch.linalg.solve on the stack
"""

import mmap
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy_peer as protocol  # noqa: E402 (the protocol and its signal handling, shared)

try:
    import torch

    # float32 products in full precision, as every other peer computes them (no TF32).
    torch.backends.cuda.matmul.allow_tf32 = False
    TORCH_IMPORT_ERROR = ""
except Exception as exc:  # reported by `hello`; the C++ side records the peer as unavailable
    torch, TORCH_IMPORT_ERROR = None, f"{type(exc).__name__}: {exc}"

ProtocolError = protocol.ProtocolError


def _interpreter():
    return f"Python {'.'.join(map(str, sys.version_info[:3]))} at {sys.executable}"


def require_torch():
    if torch is None:
        raise ProtocolError(f"torch cannot be imported: {TORCH_IMPORT_ERROR} ({_interpreter()}; set "
                            "TFBENCH_TORCH_PYTHON to a Python with torch)")


def default_device():
    """The CUDA device when torch sees one, else the CPU."""
    return torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")


def requested_device(f):
    """The device a setup's `device` field names (cuda or cpu), else default_device()."""
    kind = f.get("device")
    if kind is None:
        return default_device()
    if kind == "cpu":
        return torch.device("cpu")
    if kind != "cuda":
        raise ProtocolError(f"unknown device '{kind}' (known: cuda, cpu)")
    if not torch.cuda.is_available():
        build = f"CUDA {torch.version.cuda}" if torch.version.cuda else "a CPU-only build"
        raise ProtocolError(f"torch {torch.__version__} ({build}) sees no CUDA device")
    return torch.device("cuda", 0)


def synchronize(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def cpu_name():
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine()


def hello():
    require_torch()
    dev = default_device()
    cpu = cpu_name().replace(" ", "_")
    name = torch.cuda.get_device_name(dev).replace(" ", "_") if dev.type == "cuda" else cpu
    py = ".".join(map(str, sys.version_info[:3]))
    return (f"torch={torch.__version__} cuda={torch.version.cuda or 'none'} device={dev} "
            f"name={name} cpu_name={cpu} python={py} executable={sys.executable} "
            f"threads={torch.get_num_threads()} cpus={len(os.sched_getaffinity(0))}")


# ---------------------------------------------------------------- operations


def _items(flat, offset, batch, rows, cols, ld, stride):
    """Column-major items of the file as a [batch, rows, cols] view: element [i, r, c] is item i's (r, c)."""
    return flat.as_strided((batch, rows, cols), (stride, 1, ld), offset)


def _on_device(view, dev):
    """A compact tensor of this process on `dev` (never a view of the shared mapping)."""
    own = torch.empty(view.shape, dtype=view.dtype, device=dev)
    own.copy_(view)
    return own


class Matmul:
    def __init__(self, flat, f, dev):
        n, batch = int(f["n"]), int(f["batch"])
        ld, stride = int(f.get("ld", n)), int(f.get("stride", n * n))
        total = stride * batch
        self.device = dev
        self.a = _on_device(_items(flat, 0, batch, n, n, ld, stride), dev)
        self.b = _on_device(_items(flat, total, batch, n, n, ld, stride), dev)
        self.shared_c = _items(flat, 2 * total, batch, n, n, ld, stride)
        self.c = torch.empty_like(self.a)

    @staticmethod
    def elements(f):
        n = int(f["n"])
        return 3 * int(f.get("stride", n * n)) * int(f["batch"])

    def run(self):
        torch.bmm(self.a, self.b, out=self.c)

    def publish(self):
        self.shared_c.copy_(self.c)


class Solve:
    def __init__(self, flat, f, dev):
        n, nrhs, batch = int(f["n"]), int(f["nrhs"]), int(f["batch"])
        a_total, b_total = n * n * batch, n * nrhs * batch
        self.device = dev
        self.a = _on_device(_items(flat, 0, batch, n, n, n, n * n), dev)
        self.b = _on_device(_items(flat, a_total, batch, n, nrhs, n, n * nrhs), dev)
        self.shared_x = _items(flat, a_total + b_total, batch, n, nrhs, n, n * nrhs)
        self.x = torch.empty_like(self.b)

    @staticmethod
    def elements(f):
        n, nrhs, batch = int(f["n"]), int(f["nrhs"]), int(f["batch"])
        return (n * n + 2 * n * nrhs) * batch

    def run(self):
        torch.linalg.solve(self.a, self.b, out=self.x)

    def publish(self):
        self.shared_x.copy_(self.x)


OPERATIONS = {"matmul": Matmul, "solve": Solve}


# ---------------------------------------------------------------- protocol


class TorchServer(protocol.Server):
    """numpy_peer's server with torch's hello, threads, setup and device-fenced timing."""

    def handle(self, line):
        tokens = line.split()
        cmd = tokens[0] if tokens else ""
        if cmd == "hello":
            return hello()
        if cmd == "threads":
            require_torch()
            n = protocol.parse_fields(tokens[1:])["n"]
            torch.set_num_threads(int(n))
            return f"requested={n} verified={torch.get_num_threads()} via=torch"
        if cmd in ("run", "check"):
            op = self.op(protocol.parse_fields(tokens[1:]))
            synchronize(op.device)
            t0 = time.perf_counter_ns()
            op.run()
            synchronize(op.device)
            t1 = time.perf_counter_ns()
            if cmd == "check":
                op.publish()
            return f"ns={t1 - t0}"
        return super().handle(line)  # setup (below), release, and the errors

    def setup(self, f):
        require_torch()
        kind = OPERATIONS.get(f.get("op", ""))
        if kind is None:
            raise ProtocolError(f"unknown op '{f.get('op')}' (known: {', '.join(OPERATIONS)})")
        dtype = {"float64": torch.float64, "float32": torch.float32}.get(f.get("dtype", "float64"))
        if dtype is None:
            raise ProtocolError(f"unknown dtype '{f.get('dtype')}'")
        dev = requested_device(f)
        with open(f["file"], "r+b") as fh:
            mapping = mmap.mmap(fh.fileno(), 0)
        try:
            flat = torch.frombuffer(mapping, dtype=dtype, count=kind.elements(f))
            op = kind(flat, f, dev)
            op.run()  # warm-up: handles, workspaces and kernels exist before the first sample
            synchronize(dev)
        except BaseException:
            protocol.close_quietly(mapping)
            raise
        self.ops[f["id"]], self.maps[f["id"]] = op, mapping
        return f"id={f['id']}"


if __name__ == "__main__":
    protocol.Server = TorchServer  # numpy_peer's request loop, serving this server
    protocol.main()
