"""soak_check.py - every COMPLETED proof verified by `cuzk verify` while the soak runs.

Each proof is written to ROOT/ok/<request_id>.bin with ROOT/ok/<request_id>.cmd,
one line of shell (absolute paths) that runs `cuzk verify` on it and exits 0
when it is valid; worker threads (half the cores, 1 to 4) run the
commands. A proof that does not verify is wrong. Test-circuit proofs (no
outside verifier) get a .bin only: their check is the daemon's own
verification, their length and that no other request returned them.
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
        self.lock = threading.Lock()
        self.verified = self.unverifiable = 0
        # a GPU proves faster than one `cuzk verify` at a time keeps up with
        self.threads = [threading.Thread(target=self.run, daemon=True)
                        for _ in range(max(1, min(4, (os.cpu_count() or 2) // 2)))]
        for t in self.threads:
            t.start()

    def check(self, r, proof):
        """Queue r's proof for `cuzk verify` with its template's (unaltered) inputs."""
        path = os.path.join(self.dir, r.rid + ".bin")
        with open(path, "wb") as f:
            f.write(proof)
        argv = r.template.verify_command(path)
        if argv is None:
            with self.lock:
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
                with self.lock:
                    self.verified += 1

    def finish(self):
        for _ in self.threads:
            self.q.put(None)
        for t in self.threads:
            t.join()
