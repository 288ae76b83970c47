"""soak_check.py - every COMPLETED proof verified by `cuzk verify` while the soak runs.

Each proof is written to ROOT/ok/<request_id>.bin with ROOT/ok/<request_id>.cmd,
one line of shell (absolute paths) that runs `cuzk verify` on it and exits 0
when it is valid; a worker thread runs the commands in order. A proof that
does not verify is wrong. Test-circuit proofs (no outside verifier) get a
.bin only: their check is the daemon's own verification, their length and
that no other request returned them.
"""

import os
import queue
import shlex
import subprocess
import threading

from soak_inputs import command_line


class Checker:
    def __init__(self, root, ledger):
        self.dir = os.path.join(os.path.abspath(root), "ok")
        os.makedirs(self.dir, exist_ok=True)
        self.ledger = ledger
        self.q = queue.Queue()
        self.verified = self.unverifiable = 0
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def check(self, r, proof):
        """Queue r's proof for `cuzk verify` with its template's (unaltered) inputs."""
        path = os.path.join(self.dir, r.rid + ".bin")
        with open(path, "wb") as f:
            f.write(proof)
        argv = r.template.verify_command(path)
        if argv is None:
            self.unverifiable += 1
            return
        cmd = os.path.join(self.dir, r.rid + ".cmd")
        lib = os.environ.get("LD_LIBRARY_PATH")  # a scripts/bundle.sh folder's programs
        with open(cmd, "w") as f:
            f.write(("env LD_LIBRARY_PATH=%s " % shlex.quote(lib) if lib else "")
                    + command_line(argv) + "\n")
        self.q.put((r, argv))

    def run(self):
        while True:
            item = self.q.get()
            if item is None:
                return
            r, argv = item
            v = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if v.returncode != 0:
                self.ledger.bad(r, "cuzk verify exit %d: %s" % (v.returncode, v.stdout.strip()[-300:]))
            else:
                self.verified += 1

    def finish(self):
        self.q.put(None)
        self.thread.join()
