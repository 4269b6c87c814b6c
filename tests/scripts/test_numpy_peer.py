"""scripts/numpy_peer.py ends quietly on a Ctrl-C to its process group (it printed a KeyboardInterrupt
traceback) and when its parent closes the pipe mid-reply."""

import os
import signal
import subprocess
import sys
import time
import unittest

PEER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "numpy_peer.py")


def start_peer():
    # Its own session, so that the SIGINT below reaches the peer's process group and not the test's.
    return subprocess.Popen([sys.executable, PEER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


class NumpyPeerSignals(unittest.TestCase):
    def test_ctrl_c_to_the_group_prints_no_traceback(self):
        peer = start_peer()
        peer.stdin.write("hello\n")
        peer.stdin.flush()
        self.assertTrue(peer.stdout.readline().startswith(("ok ", "error ")))
        os.killpg(peer.pid, signal.SIGINT)  # waiting in readline() for the next request, like a Ctrl-C
        _, stderr = peer.communicate(timeout=30)
        self.assertEqual(stderr, "", "the peer printed on SIGINT")
        self.assertEqual(peer.returncode, -signal.SIGINT)

    def test_closed_pipe_prints_no_traceback(self):
        peer = start_peer()
        peer.stdout.close()  # the worker is gone: its replies have nowhere to go
        peer.stdin.write("hello\n" * 1000)
        peer.stdin.close()
        deadline = time.time() + 30
        while peer.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        stderr = peer.stderr.read()
        self.assertNotIn("Traceback", stderr)
        self.assertIsNotNone(peer.returncode)


if __name__ == "__main__":
    unittest.main()
