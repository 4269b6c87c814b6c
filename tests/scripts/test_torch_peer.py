"""scripts/torch_peer.py over its line protocol, in the Python the torch peer would use
($TFBENCH_TORCH_PYTHON, else python3 on PATH): a small strided matmul and a solve come back right
through the shared file, padding untouched, in float64 and float32. This driver needs only the
standard library; it exits 77 (CTest: skipped) with the peer's reason where that Python has no torch.
"""

import array
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

PEER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "torch_peer.py")
SKIP = 77


def torch_python():
    return os.environ.get("TFBENCH_TORCH_PYTHON") or shutil.which("python3") or "python3"


class Peer:
    def __init__(self):
        self.proc = subprocess.Popen([torch_python(), PEER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        return self.proc.stdout.readline().strip()

    def ok(self, line):
        reply = self.ask(line)
        if not reply.startswith("ok"):
            raise AssertionError(f"'{line}' answered '{reply}'")
        return dict(token.split("=", 1) for token in reply.split()[1:])

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


class SharedFile:
    """The operands as the C++ side lays them out: one flat column-major array of `typecode`."""

    def __init__(self, values, typecode):
        self.typecode = typecode
        fd, self.path = tempfile.mkstemp(prefix="tfbench-torch-test-")
        with os.fdopen(fd, "wb") as f:
            array.array(typecode, values).tofile(f)

    def read(self):
        out = array.array(self.typecode)
        with open(self.path, "rb") as f:
            out.frombytes(f.read())
        return out

    def remove(self):
        os.unlink(self.path)


PAD = -7.0  # in the padding of every operand: it must stay there


class TorchPeerProtocol(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.peer = Peer()
        cls.hello = cls.peer.ok("hello")

    @classmethod
    def tearDownClass(cls):
        cls.peer.close()

    def test_hello_names_the_device_and_versions(self):
        self.assertIn(self.hello["device"], ("cpu", "cuda:0"))
        self.assertRegex(self.hello["torch"], r"^\d+\.\d+")
        self.assertTrue(self.hello["name"])
        if self.hello["device"] == "cuda:0":
            self.assertRegex(self.hello["cuda"], r"^\d+\.\d+")

    def test_threads_are_set_and_verified(self):
        self.assertEqual(self.peer.ok("threads n=1")["verified"], "1")

    def matmul(self, typecode, dtype, tolerance):
        n, batch, ld = 3, 2, 4  # strided: one padding row per column
        stride = ld * n

        def value(which, i, r, c):
            return 1.0 + 0.25 * which + 0.5 * i + 0.125 * r - 0.0625 * c

        flat = [PAD] * (3 * stride * batch)
        for which in (0, 1):
            for i in range(batch):
                for c in range(n):
                    for r in range(n):
                        flat[which * stride * batch + i * stride + c * ld + r] = value(which, i, r, c)
        shared = SharedFile(flat, typecode)
        try:
            self.peer.ok(f"setup id=m{typecode} op=matmul dtype={dtype} file={shared.path} n={n} batch={batch} "
                         f"ld={ld} stride={stride}")
            self.assertGreater(int(self.peer.ok(f"run id=m{typecode}")["ns"]), 0)
            self.peer.ok(f"check id=m{typecode}")
            out = shared.read()
            self.peer.ok(f"release id=m{typecode}")
        finally:
            shared.remove()
        for i in range(batch):
            for c in range(ld):
                for r in range(n if c < n else 0):
                    want = sum(value(0, i, r, k) * value(1, i, k, c) for k in range(n))
                    got = out[2 * stride * batch + i * stride + c * ld + r]
                    self.assertAlmostEqual(got, want, delta=tolerance * abs(want), msg=f"C_{i}({r}, {c})")
            for c in range(n):
                self.assertEqual(out[2 * stride * batch + i * stride + c * ld + n], PAD, "C's padding is kept")

    def test_matmul_float64(self):
        self.matmul("d", "float64", 1e-14)

    def test_matmul_float32(self):
        self.matmul("f", "float32", 1e-6)

    def test_solve(self):
        n, nrhs, batch = 3, 2, 2
        a = [[[(2.0 * n if r == c else 0.5 + 0.1 * (r + 2 * c + i)) for c in range(n)] for r in range(n)]
             for i in range(batch)]
        x = [[[1.0 + r - 0.5 * j + i for j in range(nrhs)] for r in range(n)] for i in range(batch)]
        b = [[[sum(a[i][r][k] * x[i][k][j] for k in range(n)) for j in range(nrhs)] for r in range(n)]
             for i in range(batch)]
        flat = [a[i][r][c] for i in range(batch) for c in range(n) for r in range(n)]
        flat += [b[i][r][j] for i in range(batch) for j in range(nrhs) for r in range(n)]
        flat += [0.0] * (n * nrhs * batch)
        shared = SharedFile(flat, "d")
        try:
            self.peer.ok(f"setup id=s op=solve dtype=float64 file={shared.path} n={n} nrhs={nrhs} batch={batch}")
            self.peer.ok("check id=s")
            out = shared.read()
            self.peer.ok("release id=s")
        finally:
            shared.remove()
        offset = (n * n + n * nrhs) * batch
        for i in range(batch):
            for j in range(nrhs):
                for r in range(n):
                    got = out[offset + i * n * nrhs + j * n + r]
                    self.assertAlmostEqual(got, x[i][r][j], delta=1e-12, msg=f"X_{i}({r}, {j})")

    def test_setup_places_the_operation_on_the_device_asked_for(self):
        n, batch = 2, 1
        flat = [1.0, 2.0, 3.0, 4.0, 0.5, -1.0, 2.0, 0.25] + [0.0] * (n * n * batch)
        want = [1.0 * 0.5 + 3.0 * -1.0, 2.0 * 0.5 + 4.0 * -1.0, 1.0 * 2.0 + 3.0 * 0.25, 2.0 * 2.0 + 4.0 * 0.25]
        shared = SharedFile(flat, "d")
        try:
            # A host case's peer runs on the CPU, whatever GPU torch sees.
            self.peer.ok(f"setup id=cpu op=matmul dtype=float64 device=cpu file={shared.path} n={n} batch={batch}")
            self.peer.ok("check id=cpu")
            self.assertEqual(list(shared.read()[2 * n * n:]), want)
            self.peer.ok("release id=cpu")
            reply = self.peer.ask(f"setup id=gpu op=matmul dtype=float64 device=cuda file={shared.path} n={n} "
                                  f"batch={batch}")
            if self.hello["device"] == "cuda:0":
                self.assertTrue(reply.startswith("ok"), reply)
                self.peer.ok("release id=gpu")
            else:
                self.assertTrue(reply.startswith("error ") and "sees no CUDA device" in reply, reply)
            reply = self.peer.ask(f"setup id=x op=matmul device=tpu file={shared.path} n={n} batch={batch}")
            self.assertIn("unknown device 'tpu'", reply)
        finally:
            shared.remove()
        self.assertTrue(self.hello["cpu_name"])

    def test_errors_leave_the_peer_usable(self):
        self.assertTrue(self.peer.ask("setup id=z op=gemm file=/dev/null").startswith("error "))
        self.assertTrue(self.peer.ask("run id=nonexistent").startswith("error "))
        self.assertIn("device", self.peer.ok("hello"))


def main():
    peer = Peer()
    reply = peer.ask("hello")
    peer.close()
    if not reply.startswith("ok"):
        print(f"SKIP: the torch peer is unavailable in {torch_python()}: {reply}")
        sys.exit(SKIP)
    unittest.main()


if __name__ == "__main__":
    main()
