"""soak.py - drives cuzk-daemon with a mixed load while faults are injected; counts what was lost.

usage: soak.py --tools DIR --unit FILE --work DIR --param-cache DIR [-d SECONDS] [-o DIR]
               [-b cpu|cuda] [-s SIZE] [--seed N] [--clients N] [--daemon PATH] [--stall S]

Run through scripts/soak.sh. The daemon (soak_daemon.py) serves the
Filecoin kinds at SIZE with development parameters and the test circuits.
A warm-up proves one template of each kind (making the parameters on first
use) and records the daemon's RSS, open files and threads; then CLIENTS
threads send random templates at random priorities, through Prove or
SubmitProof + AwaitProof, while one thread injects faults (soak_faults.py:
each kind once first, a second apart, in a random order, then one every
--fault-every seconds on average; each in a thread of its own),
another asks GetStatus twice a second (an answer slower than 1 s is counted
as late; the daemon must not exit unasked), and a line a minute shows the
totals, the oldest unanswered request and the daemon's resources. The
daemon is not killed or drained in the last quarter of the run; after the
load its resources are compared with the warm-up's: RSS outside its memory
budget (VmRSS less GetMetrics' cuzk_memory_used_bytes: the budget's own
bytes, parameters and kept partition storage, are bounded by it and vary
with what the epoch loaded) within 25% + 64 MiB + twice the largest
oversized request decoded (glibc keeps such a request's memory in its
arenas), open files within 8, threads within 4.
Exit status 0 only when nothing was lost, nothing was wrong
(soak_ledger.py), the daemon never crashed, left no core dump, and its
resources came back (and, with --every-fault, every fault was injected).
--budget caps the whole run's wall-clock time (a device call's limit) by
shortening the load; a run whose end (the last answers, the drain) still
goes on 5 s before the budget ends prints the open requests and the
totals, counted as lost, and exits 1, so the call's own limit never ends
it without a report. --stall ends the run at once when nothing has been
answered for that long while requests are open (a hang), with the open
requests and, when SOAK_GDB names a gdb command, the daemon's threads.
"""

import argparse
import os
import random
import shlex
import subprocess
import sys
import threading
import time
import traceback

from soak_check import Checker
from soak_client import Client
from soak_daemon import Daemon, unit_command, write_config
from soak_faults import Faults, choose
import soak_inputs

MiB = 1 << 20
OPTIONS = [("grpc.max_send_message_length", 320 * MiB),
           ("grpc.max_receive_message_length", 320 * MiB)]
# PoRep 2KiB is ~20x a PoSt's constraints: sent less often.
# A budget too small for the work: the test circuits fit, no Filecoin kind's parameters do.
# The CUDA backend reserves its pinned staging buffers (3 pools x 4 slots x 32 MiB, twice with
# the small-circuit lane, whose pools are its own: 768 MiB) from the budget at start: below
# them the daemon refuses to start, naming them (432 MiB, from before the lane, made every
# tight epoch on the H200 such a refusal); above them the CPU's 48 MiB.
TIGHT_BUDGET = {"cpu": "48MiB", "cuda": "816MiB"}
# Faults that stop the daemon: one at a time, none in the last quarter of the run. The
# others run at most OTHER_FAULTS at once.
DAEMON_FAULTS = ("sigkill", "sigterm", "small_budget")
OTHER_FAULTS = 6
# Seconds kept, under --budget, for the end: the last requests, verification, the drain; the
# warm-up's own time is kept too, for the normal restart and warm-up after a last epoch with
# a too small budget (the H200 soak of 2026-12-05 ran out of its budget in that warm-up:
# 512MiB SnapDeals parameters loaded again, 20 GiB read and the shape recorded).
BUDGET_RESERVE = 30
KIND_WEIGHTS = {"test": 4, "porep": 1, "winning": 2, "window": 2, "snap": 2}
# Seconds a client waits after a refusal before its next request: the first, and the
# most while refusals follow (client_loop).
REFUSAL_BACKOFF = (0.05, 2.0)


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--tools", required=True)
    p.add_argument("--daemon", help="the daemon binary (default TOOLS/cuzk-daemon)")
    p.add_argument("--proto-py", required=True)
    p.add_argument("--unit", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--param-cache", required=True)
    p.add_argument("-d", "--duration", type=float, default=180)
    p.add_argument("-o", "--out")
    p.add_argument("-b", "--backend", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("-s", "--size", default="2KiB", choices=sorted(soak_inputs.SIZES))
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--clients", type=int, default=3)
    p.add_argument("--kinds", default="porep,winning,window,snap,test",
                   help="the kinds sent (test circuits are always sent)")
    p.add_argument("--inputs", help="where the inputs are made and kept (default WORK/inputs)")
    p.add_argument("--seal", action="store_true",
                   help="above 2KiB, seal a sector with cuzk-seal (minutes) instead of sparse inputs")
    p.add_argument("--prepare", action="store_true",
                   help="make the inputs and parameters (the warm-up), then stop")
    p.add_argument("--faults", help="only these faults (soak_faults.py's method names)")
    p.add_argument("--budget", type=float,
                   help="wall-clock seconds for the whole run: the load is shortened so that "
                        "inputs, warm-up, load and drain end within it (a device call's limit)")
    p.add_argument("--every-fault", action="store_true",
                   help="go on past -d until every fault was injected once (at most -d + 60 s more, "
                        "never past --budget); fail (exit 1) when one was not")
    p.add_argument("--fault-every", type=float, default=4.0, help="mean seconds between faults")
    p.add_argument("--stall", type=float, default=0,
                   help="end the run (exit 1) when no request has been answered for this many "
                        "seconds while some are open: the open requests and, with SOAK_GDB, the "
                        "daemon's threads are reported (0: never)")
    return p.parse_args()


class Soak:
    def __init__(self, a, pb, pbg):
        self.a, self.pb = a, pb
        self.rng = random.Random(a.seed)
        self.root = os.path.abspath(a.out or a.work)
        os.makedirs(a.work, exist_ok=True)
        from soak_ledger import Ledger
        self.ledger = Ledger("soak%d" % a.seed)
        self.checker = Checker(self.root, self.ledger)
        self.config = os.path.join(os.path.abspath(a.work), "cuzk.toml")
        sock = os.path.join(os.path.abspath(a.work), "d.sock")
        # absolute: the daemon runs in the work folder (--daemon build/... relative to here)
        daemon = os.path.abspath(a.daemon or os.path.join(a.tools, "cuzk-daemon"))
        command = unit_command(a.unit, daemon, self.config)
        command += ["--test-circuits", "--dev-params"]
        self.daemon = Daemon(pb, pbg, command, sock, os.path.join(os.path.abspath(a.work),
                                                                   "daemon.log"), OPTIONS)
        self.client = Client(pb, self.daemon, self.ledger, self.checker)
        self.sock = sock
        self.param_cache = os.path.abspath(a.param_cache)
        self.work = os.path.abspath(a.work)
        self.command = command
        self.tight = False  # the daemon's epoch runs with TIGHT_BUDGET
        self.stop = threading.Event()
        self.finished = threading.Event()  # the load and its answers are over (stall_loop)
        self.reporting = threading.Event()  # the report is being made (overrun_loop)
        self.late, self.max_status_ms, self.status_calls = 0, 0.0, 0
        self.driver_errors = []
        self.current_fault = None  # (name, since) of the fault the fault loop waits for
        self.undrawn = set()  # faults the run has not injected yet
        self.fault_threads = []  # faults in progress
        self.largest_read = 0  # bytes of the largest (oversized) request the daemon decoded

    def write_config(self, tight=False):
        self.tight = tight
        tables = {
            "daemon": {"listen": "unix://" + self.sock, "shutdown_grace": "20s"},
            "srs": {"param_cache": os.path.abspath(self.a.param_cache)},
            # Above 2KiB one kind's parameters alone can pass 4 GiB (512MiB PoRep ~3 GB):
            # the daemon's default there, RAM less the safety margin.
            "memory": {"total_budget": TIGHT_BUDGET[self.a.backend] if tight else
                       "4GiB" if self.a.size == "2KiB" else "auto"},
            "gpus": {"backend": self.a.backend},
            "scheduler": {"max_batch_size": self.rng.choice([1, 2, 3]), "max_batch_wait_ms": 500},
            "logging": {"level": "info"},
        }
        write_config(self.config, tables)

    def side_daemon(self, root, cache):
        """A second daemon (the same command) on its own socket, config and param cache."""
        sock, config = os.path.join(root, "d.sock"), os.path.join(root, "cuzk.toml")
        write_config(config, {"daemon": {"listen": "unix://" + sock},
                              "srs": {"param_cache": cache},
                              "memory": {"total_budget": "1GiB"},
                              "gpus": {"backend": "cpu"}})
        command = [config if c == self.config else c for c in self.command]
        d = Daemon(self.pb, self.daemon.pbg, command, sock, os.path.join(root, "daemon.log"),
                   OPTIONS)
        d.start()
        return d

    def restart(self, tight=None):
        """The unit's restart; a quarter of them (or as asked) with a too small budget."""
        time.sleep(1)  # the unit's RestartSec, shortened
        if tight is None:
            tight = self.rng.random() < 0.25
        self.write_config(tight)
        if tight:
            self.ledger.fault("epochs with a too small memory budget")
        self.daemon.start()

    def pick(self):
        have = {t.kind for t in self.templates}
        kinds = [k for k in KIND_WEIGHTS if k in have for _ in range(KIND_WEIGHTS[k])]
        kind = self.rng.choice(kinds)
        return self.rng.choice([t for t in self.templates if t.kind == kind])

    def client_loop(self):
        """Requests one after the other; after a refusal the next waits a while, doubling
        from REFUSAL_BACKOFF[0] to REFUSAL_BACKOFF[1] seconds while refusals follow (half
        to all of it, at random), as Curio retries a task that failed some time later:
        a tight epoch's refusals come in milliseconds, and clients sending again at once
        made the mix some 50 refusals a second (H200, session 23)."""
        backoff = 0.0
        while not self.stop.is_set():
            t = self.pick()
            r = self.ledger.new(t, t.fields)
            got = self.client.send(r, priority=self.rng.randrange(1, 5),
                                   submit=self.rng.random() < 0.5)
            if got != "refused":
                backoff = 0.0
                continue
            backoff = min(max(REFUSAL_BACKOFF[0], 2 * backoff), REFUSAL_BACKOFF[1])
            self.stop.wait(backoff * self.rng.uniform(0.5, 1.0))

    def fault_loop(self, faults, calm_after):
        """Every fault once, in a random order, a second apart (the daemon's last), then
        faults drawn by weight every fault_every seconds on average. Each runs in a thread
        of its own, so that one waiting for a proof (a resent request, a drain behind a
        CPU PoRep) holds up no other: the daemon's faults one at a time (the loop waits
        for the last one before the next), the others at most OTHER_FAULTS at once."""
        weighted = faults.all(self.a.faults.split(",") if self.a.faults else None)
        quiet = [(w, f) for w, f in weighted if f.__name__ not in DAEMON_FAULTS]
        first = [f for _, f in weighted]
        self.rng.shuffle(first)
        first.sort(key=lambda f: f.__name__ not in DAEMON_FAULTS)  # popped from the end
        self.undrawn = {f.__name__ for f in first}
        daemon_fault = None
        while weighted and not self.stop.wait(min(1.0, self.a.fault_every) if first else
                                              self.rng.expovariate(1 / self.a.fault_every)):
            f = first.pop() if first else choose(self.rng, quiet if time.time() > calm_after
                                                 else weighted)
            th = threading.Thread(target=self.inject, args=(f,))
            if f.__name__ in DAEMON_FAULTS:
                if daemon_fault:
                    self.current_fault = (daemon_fault.name, time.time())
                    daemon_fault.join()
                    self.current_fault = None
                daemon_fault = th
            else:
                others = [t for t in self.fault_threads if t.is_alive() and t is not daemon_fault]
                if len(others) >= OTHER_FAULTS:
                    self.current_fault = (others[0].name, time.time())
                    others[0].join()
                    self.current_fault = None
            th.name = f.__name__
            self.undrawn.discard(f.__name__)
            th.start()
            self.fault_threads = [t for t in self.fault_threads if t.is_alive()] + [th]

    def inject(self, f):
        try:
            f()
        except Exception:  # noqa: BLE001 - the soak's own error: reported, and it fails
            self.driver_errors.append(traceback.format_exc())

    def status_loop(self):
        while not self.stop.wait(0.5):
            if self.daemon.check_alive():
                self.restart()
                continue
            if not self.daemon.up:
                continue
            epoch, stub, t0 = self.daemon.epoch, self.daemon.stub, time.time()
            try:
                stub.GetStatus(self.pb.GetStatusRequest(), timeout=10)
            except Exception:  # noqa: BLE001 - any failure while it serves is late
                if self.daemon.epoch != epoch or not self.daemon.up:
                    continue
            ms = (time.time() - t0) * 1e3
            self.status_calls += 1
            self.max_status_ms = max(self.max_status_ms, ms)
            if ms > 1000:
                self.late += 1

    def progress_loop(self, start, every=60):
        """A line a minute: totals, the oldest open request, the fault in progress, the daemon."""
        while not self.stop.wait(every):
            sent, answered, done, refused, lost = self.ledger.totals()
            line = "soak: %4.0f s: %d requests, %d answered (%d completed), %d open" % (
                time.time() - start, sent, answered, done, len(lost))
            oldest = self.ledger.oldest_open()
            if oldest:
                line += " (oldest %.0f s: %s %s)" % (oldest[0], oldest[1].rid,
                                                     oldest[1].template.name if oldest[1].template
                                                     else "-")
            fault = self.current_fault
            if fault:
                line += "; waiting %.0f s for fault %s" % (time.time() - fault[1], fault[0])
            line += "; %d faults, epoch %d" % (sum(self.ledger.faults.values()), self.daemon.epoch)
            try:
                rss, files, threads, used = self.daemon.resources()
                line += ", daemon RSS %d MiB (%d in its budget), %d files, %d threads" % (
                    rss / MiB, used / MiB, files, threads)
            except OSError:
                line += ", daemon not running"
            print(line + "; GetStatus slowest %.0f ms" % self.max_status_ms, flush=True)

    def stall_loop(self):
        """--stall: no answer for that long while requests are open is a hang (a device call
        would otherwise end at its time limit with no report: the H200 soak of 2026-12-04).
        The open requests, the daemon's threads (SOAK_GDB: a gdb command, run with -batch -p
        PID) and the totals are printed, the daemon is killed, and the soak exits 1."""
        last, seen = time.time(), -1
        while not self.finished.wait(5):
            answered = self.ledger.totals()[1]
            if answered != seen or not self.ledger.oldest_open():
                last, seen = time.time(), answered
                continue
            if time.time() - last >= self.a.stall:
                self.give_up("STALLED", "no answer for %.0f s" % (time.time() - last), True)

    def overrun_loop(self):
        """--budget: a run whose end (the last answers, a drain) still goes on 5 s before the
        budget ends gives up with its report (the H200 soak of 2026-12-05 was ended by its
        call's limit, no report: SnapDeals refusals of a tight epoch took a minute each)."""
        end = self.began + self.a.budget - 5
        while not self.reporting.wait(max(0.0, min(1.0, end - time.time()))):
            if time.time() >= end:
                self.give_up("OUT OF TIME", "--budget %.0f s reached" % self.a.budget, False)

    def give_up(self, tag, why, stalled):
        """The run ends at once: the open requests (counted as lost), the totals with the
        tag; the daemon is killed, the soak exits 1. stalled: the daemon hung, so its threads
        are dumped and the stall is counted wrong; else (out of time) nothing answered was
        wrong, and wrong counts only wrong answers."""
        sent, answered, done, refused, lost = self.ledger.totals()
        age, oldest = self.ledger.oldest_open() or (0, None)
        print("soak: %s: %s with %d open (oldest %.0f s: %s %s); epoch %d"
              % (tag, why, len(lost), age, oldest.rid if oldest else "-",
                 oldest.template.name if oldest and oldest.template else "-", self.daemon.epoch),
              flush=True)
        print("soak: open: " + " ".join(lost[:40]), flush=True)
        for p in self.ledger.wrong[:50]:
            print("soak: WRONG " + p, flush=True)
        gdb = os.environ.get("SOAK_GDB")
        if stalled and gdb and self.daemon.proc.poll() is None:
            path = os.path.join(os.path.abspath(self.a.work), "stall-stacks.txt")
            with open(path, "w") as f:
                subprocess.run(shlex.split(gdb) + ["-nx", "-batch", "-p", str(self.daemon.proc.pid),
                                                   "-ex", "thread apply all bt"],
                               stdout=f, stderr=subprocess.STDOUT, timeout=120, check=False)
            print("soak: the daemon's threads: " + path, flush=True)
        faults = ", ".join("%s %d" % (k, v) for k, v in sorted(self.ledger.faults.items()))
        print("soak: %d requests, %d answered, %d completed, %d refused with a status, lost %d, "
              "wrong %d, faults: %s; %s" % (sent, answered, done, refused, len(lost),
                                            len(self.ledger.wrong) + stalled, faults, tag), flush=True)
        try:
            self.daemon.kill()
        finally:
            os._exit(1)

    def warm_up(self):
        """One proof of each kind (parameters made on first use), then the resources."""
        first = {}
        for t in self.templates:
            first.setdefault(t.kind, t)
        for t in first.values():
            r = self.ledger.new(t, t.fields)
            self.client.send(r)
            if r.answer is None or r.answer[0] != "completed":
                raise RuntimeError("warm-up %s: %s" % (t.name, r.answer))
        time.sleep(2)
        return self.daemon.resources()

    def run(self):
        a = self.a
        self.began = time.time()
        print("soak: making inputs (%s)" % a.size, flush=True)
        inputs = os.path.abspath(a.inputs or os.path.join(a.work, "inputs"))
        self.templates = soak_inputs.make_all(self.pb, a.tools, inputs,
                                              os.path.abspath(a.param_cache), a.size, a.seed,
                                              a.kinds.split(","), a.seal)
        self.write_config()
        self.daemon.start()
        t0 = time.time()
        before = self.warm_up()
        self.warm_s = time.time() - t0
        print("soak: warm-up %.0f s; daemon RSS %d MiB (%d in its memory budget), %d files, "
              "%d threads" % (self.warm_s, before[0] / MiB, before[3] / MiB, before[1],
                              before[2]), flush=True)
        if a.prepare:
            rc = self.daemon.drain()
            print("soak: prepared (inputs, parameters); daemon exit %s" % rc)
            return 0 if rc == 0 else 1
        start = time.time()
        if a.budget:
            left = a.budget - (start - self.began) - self.reserve()
            if left < a.duration:
                print("soak: the load shortened to %.0f s (--budget %.0f s)" % (max(left, 0),
                                                                               a.budget), flush=True)
                a.duration = max(left, 0)
        faults = Faults(self.pb, self, self.rng)
        threads = [threading.Thread(target=self.client_loop) for _ in range(a.clients)]
        threads.append(threading.Thread(target=self.fault_loop,
                                        args=(faults, start + 0.75 * a.duration)))
        prober = threading.Thread(target=self.status_loop)
        progress = threading.Thread(target=self.progress_loop, args=(start,), daemon=True)
        watch = [threading.Thread(target=self.stall_loop, daemon=True)] if a.stall else []
        if a.budget:
            watch.append(threading.Thread(target=self.overrun_loop, daemon=True))
        for th in threads + [prober, progress] + watch:
            th.start()
        limit = self.load_limit(start)
        while time.time() - start < a.duration or (
                a.every_fault and self.undrawn and time.time() < limit):
            time.sleep(1)
        if time.time() - start > a.duration + 1:
            print("soak: the load ran %.0f s past -d %.0f s, until every fault was injected"
                  % (time.time() - start - a.duration, a.duration), flush=True)
        self.stop.set()
        for th in threads:
            th.join()
        for th in self.fault_threads:
            th.join()
        prober.join()
        self.finished.set()
        if self.tight and self.daemon.proc.poll() is None:
            # "before" was measured in a normal epoch after its warm-up: so is "after" (a
            # tight epoch's partitions live outside its budget: a clean-clone make test
            # here, 2026-12-04, 90 MiB outside before, 254 after, in a 48 MiB epoch)
            print("soak: the last epoch had a too small budget: a normal restart and warm-up "
                  "before the resources are measured", flush=True)
            self.daemon.drain()
            self.restart(tight=False)
            self.warm_up()
        self.checker.finish()
        time.sleep(3)
        after = self.daemon.resources() if self.daemon.proc.poll() is None else None
        rc = self.daemon.drain()
        self.reporting.set()
        return self.report(time.time() - start, before, after, rc)

    def load_limit(self, start):
        """--every-fault: the load goes on past -d until every fault was injected once (the
        daemon's faults run one at a time, each waiting for the drains of the one before: a
        slow machine (CI, 2026-12-04: a 120 s load ended with SIGKILL undrawn) needs longer),
        at most as long again plus a minute, and never past --budget."""
        limit = start + 2 * self.a.duration + 60
        if self.a.budget:
            limit = min(limit, self.began + self.a.budget - self.reserve())
        return limit

    def reserve(self):
        """The seconds --budget keeps after the load: the end's, and a warm-up again."""
        return BUDGET_RESERVE + self.warm_s

    def report(self, seconds, before, after, rc):
        sent, answered, done, refused, lost = self.ledger.totals()
        problems = list(self.ledger.wrong)
        problems += ["crash: " + c for c in self.daemon.crashes]
        problems += ["core dump: " + c for c in self.daemon.core_dumps()]
        problems += ["the soak's own error in a fault:\n" + e for e in self.driver_errors]
        if after is None:
            problems.append("the daemon was not running after the load")
        else:
            # RSS outside the memory budget: the budget's own bytes (parameters loaded by
            # the load's kinds, partition storage kept for reuse) are bounded by it and
            # differ with what the last epoch happened to load.
            # Twice the largest request the daemon decoded more: a 66 MB request it refused
            # left ~62 MiB of RSS in glibc's arenas, the same after four (not a leak).
            outside = [max(0, r[0] - r[3]) for r in (before, after)]
            rss_ok = outside[1] <= outside[0] * 1.25 + 64 * MiB + 2 * self.largest_read
            if not (rss_ok and after[1] <= before[1] + 8 and after[2] <= before[2] + 4):
                problems.append("resources did not come back: before %s, after %s" % (before, after))
            print("soak: resources before/after the load: RSS %d/%d MiB (outside the memory budget"
                  " %d/%d MiB, largest oversized request decoded %d MiB), files %d/%d, threads %d/%d"
                  % (before[0] / MiB, after[0] / MiB, outside[0] / MiB, outside[1] / MiB,
                     self.largest_read / MiB, before[1], after[1], before[2], after[2]))
        print("soak: %.0f s, %d proofs verified by cuzk verify, %d test-circuit proofs (daemon-verified);"
              " GetStatus: %d calls, %d slower than 1 s, slowest %.0f ms; final SIGTERM exit %s"
              % (seconds, self.checker.verified, self.checker.unverifiable, self.status_calls,
                 self.late, self.max_status_ms, rc))
        for msg, n in self.ledger.refusals.most_common(12):
            print("soak: refused %5d x %s" % (n, msg))
        for p in problems[:50]:
            print("soak: WRONG " + p)
        for rid in lost[:50]:
            print("soak: LOST " + rid)
        if self.undrawn:
            print("soak: %s: faults not injected (the run ended first): %s"
                  % ("FAILED" if self.a.every_fault else "note", ", ".join(sorted(self.undrawn))))
        faults = ", ".join("%s %d" % (k, v) for k, v in sorted(self.ledger.faults.items()))
        print("soak: %d requests, %d answered, %d completed, %d refused with a status, lost %d, "
              "wrong %d, faults: %s" % (sent, answered, done, refused, len(lost), len(problems), faults))
        if self.a.every_fault and self.undrawn:
            return 1
        return 0 if not lost and not problems else 1


def main():
    a = parse()
    sys.path.insert(0, a.proto_py)
    from cuzk.v1 import proving_pb2 as pb
    from cuzk.v1 import proving_pb2_grpc as pbg
    sys.exit(Soak(a, pb, pbg).run())


if __name__ == "__main__":
    main()
