#!/usr/bin/python3
"""NumPy peer of the tfbench workload families: a persistent process driven over a line protocol.

The C++ side (workloads/src/peers/numpy_runner.cpp) starts one of these per worker process and
speaks one request line, one reply line at a time over stdin/stdout:

    hello                                   -> ok numpy=<v> python=<v> blas=<name> blas_threads=<n>
                                               via=<how the count was read> cpus=<affinity>
    threads n=<N>                           -> ok requested=<N> verified=<n> via=<how>
    setup id=<k> op=<op> dtype=<t> file=<path> <op fields>
                                            -> ok id=<k>
    run id=<k>                              -> ok ns=<nanoseconds of the operation alone>
    check id=<k>                            -> ok ns=<...>   (and the output is written to the file)
    release id=<k>                          -> ok
    quit                                    -> (exits)

Any failure answers `error <message>` on one line; the process stays usable. Operands are passed
in a shared file (the C++ side creates it in /dev/shm) holding the operands column-major, one
after the other, followed by the output region; this process copies them into arrays of its own
before timing, so the timed operation never touches the shared mapping. Times are measured here
with time.perf_counter_ns around the NumPy call only (no pipe round trip).

Operations (all operands column-major in the file, like the C++ variants):
    matmul  n, batch, ld, stride    C_i = A_i B_i for a stack of n x n items (leading dimension ld,
                                    item stride `stride` elements): np.matmul on the stack
    solve   n, nrhs, batch          X_i = A_i^-1 B_i: np.linalg.solve on the stack
    gemm    m, n, k                 C = A B for one large matrix: np.matmul
"""

import ctypes
import mmap
import os
import signal
import sys
import time

# Ctrl-C at a terminal reaches the whole process group, this peer included, and a parent that went
# away closes the pipe: end quietly as a C program would (the worker records what happened), never
# with a KeyboardInterrupt or BrokenPipeError traceback on the user's terminal.
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)

try:
    import numpy as np
except Exception as exc:  # reported by `hello`; the C++ side records the peer as unavailable
    np = None
    NUMPY_IMPORT_ERROR = f"{type(exc).__name__}: {exc}"
else:
    NUMPY_IMPORT_ERROR = ""


DTYPES = {"float64": "f8", "float32": "f4"}


class ProtocolError(Exception):
    pass


# ---------------------------------------------------------------- BLAS threads (set and verified)


def _loaded_openblas():
    """The OpenBLAS shared object this process has loaded (through NumPy), or None."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "/" in line}
    except OSError:
        return None
    for path in sorted(paths):
        if "openblas" in os.path.basename(path):
            try:
                lib = ctypes.CDLL(path)
                lib.openblas_get_num_threads  # noqa: B018 (attribute probe)
                return lib
            except (OSError, AttributeError):
                continue
    return None


def blas_description():
    """Which BLAS NumPy uses and its current thread count, as (name, threads, how we know)."""
    try:
        from threadpoolctl import threadpool_info

        for entry in threadpool_info():
            if entry.get("user_api") == "blas":
                name = f"{entry.get('internal_api')}-{entry.get('version')}"
                return name, int(entry.get("num_threads", 0)), "threadpoolctl"
    except Exception:  # threadpoolctl is optional: fall back to the loaded library itself
        pass
    lib = _loaded_openblas()
    if lib is not None:
        lib.openblas_get_config.restype = ctypes.c_char_p
        config = lib.openblas_get_config().decode(errors="replace").replace(" ", "_")
        return f"openblas({config})", int(lib.openblas_get_num_threads()), "openblas_ctypes"
    return "unknown", 0, "none"


def set_blas_threads(n):
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=n, user_api="blas")
        _, verified, via = blas_description()
        return verified, "threadpoolctl" if via == "threadpoolctl" else via
    except Exception:
        pass
    lib = _loaded_openblas()
    if lib is None:
        return 0, "none"
    lib.openblas_set_num_threads(ctypes.c_int(n))
    return int(lib.openblas_get_num_threads()), "openblas_ctypes"


# ---------------------------------------------------------------- operations


def _col_major_stack(buf, offset, dtype, batch, rows, cols, ld, stride):
    """A (batch, cols, rows) row-major view of column-major items: element [i, c, r] is item i's
    (r, c); the view is therefore the stack of transposed items."""
    itemsize = np.dtype(dtype).itemsize
    return np.ndarray(
        shape=(batch, cols, rows),
        dtype=dtype,
        buffer=buf,
        offset=offset * itemsize,
        strides=(stride * itemsize, ld * itemsize, itemsize),
    )


def _own_copy(shared_view, total):
    """An array of this process with the same element layout as the shared one."""
    dtype = shared_view.dtype
    own = np.empty(total, dtype=dtype)
    view = np.lib.stride_tricks.as_strided(own, shape=shared_view.shape, strides=shared_view.strides)
    view[...] = shared_view
    return own, view


class Matmul:
    """C_i = A_i B_i. With transposed views (see _col_major_stack) that is C^T = B^T A^T, so NumPy
    runs matmul(b, a, out=c) on the stacks without any copy of its own."""

    def __init__(self, buf, dtype, f):
        n, batch = int(f["n"]), int(f["batch"])
        ld, stride = int(f.get("ld", n)), int(f.get("stride", n * n))
        total = stride * batch
        self.shared_c = _col_major_stack(buf, 2 * total, dtype, batch, n, n, ld, stride)
        _, self.a = _own_copy(_col_major_stack(buf, 0, dtype, batch, n, n, ld, stride), total)
        _, self.b = _own_copy(_col_major_stack(buf, total, dtype, batch, n, n, ld, stride), total)
        _, self.c = _own_copy(self.shared_c, total)

    def run(self):
        np.matmul(self.b, self.a, out=self.c)

    def publish(self):
        self.shared_c[...] = self.c


class Gemm(Matmul):
    """One large C = A B (m x k times k x n), column-major."""

    def __init__(self, buf, dtype, f):
        m, n, k = int(f["m"]), int(f["n"]), int(f["k"])
        itemsize = np.dtype(dtype).itemsize

        def stack(offset, rows, cols):
            return np.ndarray(shape=(cols, rows), dtype=dtype, buffer=buf, offset=offset * itemsize)

        self.shared_c = stack(m * k + k * n, m, n)
        self.a = np.array(stack(0, m, k))
        self.b = np.array(stack(m * k, k, n))
        self.c = np.empty_like(self.shared_c)


class Solve:
    """X_i = A_i^-1 B_i by np.linalg.solve on the stack (LAPACK gesv per item inside NumPy)."""

    def __init__(self, buf, dtype, f):
        n, nrhs, batch = int(f["n"]), int(f["nrhs"]), int(f["batch"])
        a_total, b_total = n * n * batch, n * nrhs * batch
        shared_a = _col_major_stack(buf, 0, dtype, batch, n, n, n, n * n)
        shared_b = _col_major_stack(buf, a_total, dtype, batch, n, nrhs, n, n * nrhs)
        self.shared_x = _col_major_stack(buf, a_total + b_total, dtype, batch, n, nrhs, n, n * nrhs)
        # The transposed stacks swapped back: the matrices themselves, as strided views.
        self.a = np.array(shared_a).swapaxes(-1, -2)
        self.b = np.array(shared_b).swapaxes(-1, -2)
        self.x = None

    def run(self):
        self.x = np.linalg.solve(self.a, self.b)

    def publish(self):
        self.shared_x[...] = self.x.swapaxes(-1, -2)


OPERATIONS = {"matmul": Matmul, "gemm": Gemm, "solve": Solve}


# ---------------------------------------------------------------- protocol


def parse_fields(tokens):
    fields = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if not sep:
            raise ProtocolError(f"expected key=value, got '{token}'")
        fields[key] = value
    return fields


def close_quietly(mapping):
    """Closes a mapping unless a view still exports it (then it goes with its last view)."""
    try:
        mapping.close()
    except BufferError:
        pass


class Server:
    def __init__(self):
        self.ops = {}
        self.maps = {}

    def handle(self, line):
        tokens = line.split()
        if not tokens:
            raise ProtocolError("empty request")
        cmd, f = tokens[0], parse_fields(tokens[1:])
        if cmd == "hello":
            if np is None:
                raise ProtocolError(f"numpy cannot be imported: {NUMPY_IMPORT_ERROR}")
            blas, threads, via = blas_description()
            py = ".".join(map(str, sys.version_info[:3]))
            cpus = len(os.sched_getaffinity(0))
            return (
                f"numpy={np.__version__} python={py} blas={blas} blas_threads={threads} via={via} "
                f"cpus={cpus}"
            )
        if cmd == "threads":
            verified, via = set_blas_threads(int(f["n"]))
            return f"requested={f['n']} verified={verified} via={via}"
        if cmd == "setup":
            return self.setup(f)
        if cmd in ("run", "check"):
            op = self.op(f)
            t0 = time.perf_counter_ns()
            op.run()
            t1 = time.perf_counter_ns()
            if cmd == "check":
                op.publish()
            return f"ns={t1 - t0}"
        if cmd == "release":
            key = f["id"]
            self.ops.pop(key, None)
            mapping = self.maps.pop(key, None)
            if mapping is not None:
                close_quietly(mapping)
            return ""
        raise ProtocolError(f"unknown command '{cmd}'")

    def op(self, f):
        try:
            return self.ops[f["id"]]
        except KeyError:
            raise ProtocolError(f"no operation with id {f.get('id')}") from None

    def setup(self, f):
        kind = OPERATIONS.get(f.get("op", ""))
        if kind is None:
            raise ProtocolError(f"unknown op '{f.get('op')}' (known: {', '.join(OPERATIONS)})")
        dtype = DTYPES.get(f.get("dtype", "float64"))
        if dtype is None:
            raise ProtocolError(f"unknown dtype '{f.get('dtype')}'")
        with open(f["file"], "r+b") as fh:
            mapping = mmap.mmap(fh.fileno(), 0)
        try:
            op = kind(mapping, dtype, f)
        except BaseException:
            close_quietly(mapping)
            raise
        self.ops[f["id"]], self.maps[f["id"]] = op, mapping
        return f"id={f['id']}"


def main():
    server = Server()
    out = sys.stdout
    for line in sys.stdin:
        line = line.strip()
        if line == "quit":
            break
        try:
            reply = "ok " + server.handle(line)
        except Exception as exc:  # one request failed; the peer stays usable
            message = f"{type(exc).__name__}: {exc}".replace("\n", " ")
            reply = "error " + message
        out.write(reply.rstrip() + "\n")
        out.flush()


if __name__ == "__main__":
    main()
