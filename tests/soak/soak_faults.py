"""soak_faults.py - the faults the soak injects while the load runs, each counted.

Client faults (the request is then resent with its request_id, as Curio
does, and must still get exactly one answer): a disconnect in the middle of
Prove, a deadline that expires, AwaitProof with a 10 ms timeout, a cancel
of a queued and of a running job, the same request_id submitted twice (one
job, one answer; two jobs only when the first had failed, a retry, whose
answer counts). Malformed requests, each of which must get a status and
never a proof that fails verification: random bytes and truncated messages
on the wire, the wrong proof kind, altered vanilla data, oversized inputs.
Daemon faults: SIGKILL and a restart with the unit's command, SIGTERM
(drain, exit 0) and a restart; the restart picks the next epoch's batch
size and, a quarter of the time, a memory budget too small for the work
(soak.py); small_budget makes such an epoch on purpose, sends each kind
into it, and restarts with the normal budget.
"""

import os
import shutil
import subprocess
import threading
import time

import grpc

from soak_client import TRANSPORT
from soak_daemon import Method
from soak_inputs import test_circuit, test_record

PROVE = "/cuzk.v1.ProvingEngine/Prove"
CORRUPT_CONSTRAINTS = 3000  # a test circuit of its own, so the load's circuits are never refused


class Faults:
    def __init__(self, pb, soak, rng):
        self.pb, self.soak, self.rng = pb, soak, rng
        self.client, self.ledger, self.daemon = soak.client, soak.ledger, soak.daemon
        self.oversized_big = False
        # corrupt_params shares one parameter file, full_disk one mount: one at a time each
        self.params_lock, self.disk_lock = threading.Lock(), threading.Lock()

    def pick(self, kinds=None):
        ts = [t for t in self.soak.templates if kinds is None or t.kind in kinds]
        return self.rng.choice(ts or self.soak.templates)

    def new(self, t=None, fields=None, expect="proof"):
        t = t or self.pick()
        return self.ledger.new(t, fields if fields is not None else t.fields, expect)

    # ---- client faults ----

    def disconnect(self):
        """Prove, then the call cancelled (the client gone) while the job is queued or
        running; tried again, sooner, when the proof came back first (a fast kind)."""
        for attempt in range(1, 5):
            r = self.new()
            epoch, stub = self.client.wait_up()
            msg = self.pb.ProveRequest(submit=self.client.submit_message(r, 2))
            fut = stub.Prove.future(msg, timeout=1800)
            time.sleep(self.rng.uniform(0.02, 2.0 / attempt))
            cancelled = fut.cancel()
            if cancelled:
                self.ledger.fault("disconnects")
            else:
                self.take_future(r, fut, epoch)
            if r.answer is None:
                self.client.send(r)
            if cancelled:
                return
        self.ledger.fault("disconnects too late (the proof came first)")

    def take_future(self, r, fut, epoch):
        try:
            self.client.record(r, fut.result().result)
        except grpc.RpcError as e:
            if e.code() == grpc.StatusCode.UNAVAILABLE or self.daemon.epoch != epoch:
                return  # resent by the caller
            self.ledger.refused(r, "gRPC %s: %s" % (e.code().name, e.details()))

    def deadline(self):
        """Prove with a deadline shorter than the proof; tried again, shorter, when the
        proof came back in time."""
        for attempt in range(1, 5):
            r = self.new()
            epoch, stub = self.client.wait_up()
            msg = self.pb.ProveRequest(submit=self.client.submit_message(r, 2))
            expired = False
            try:
                res = stub.Prove(msg, timeout=self.rng.uniform(0.01, 0.3 / attempt)).result
                self.client.record(r, res)
            except grpc.RpcError as e:
                if e.code() == grpc.StatusCode.DEADLINE_EXCEEDED:
                    expired = True
                    self.ledger.fault("expired deadlines")
                elif e.code() != grpc.StatusCode.UNAVAILABLE and self.daemon.epoch == epoch:
                    self.ledger.refused(r, "gRPC %s: %s" % (e.code().name, e.details()))
            if r.answer is None:
                self.client.send(r)
            if expired:
                return
        self.ledger.fault("deadlines not reached (the proof came first)")

    def await_timeout(self):
        r = self.new()
        self.guarded(r, lambda stub: self.client.submit_await(r, stub, 2, short_awaits=2))

    def cancel(self, running):
        t = self.pick(["test"]) if running else self.pick()
        r = self.new(t)

        def go(stub):
            job = stub.SubmitProof(self.client.submit_message(r, 1), timeout=60).job_id
            if running:
                self.wait_running(stub, job)
            stub.CancelProof(self.pb.CancelProofRequest(job_id=job), timeout=60)
            self.ledger.fault("cancels of running jobs" if running else "cancels of queued jobs")
            self.client.await_job(r, stub, job)

        self.guarded(r, go)

    def wait_running(self, stub, job, limit=30):
        deadline = time.time() + limit
        while time.time() < deadline:
            st = stub.GetStatus(self.pb.GetStatusRequest(), timeout=5)
            if any(g.current_job_id == job for g in st.gpus):
                return
            time.sleep(0.05)

    def resubmit(self):
        r = self.new()

        def go(stub):
            msg = self.client.submit_message(r, 2)
            a = stub.SubmitProof(msg, timeout=60).job_id
            time.sleep(self.rng.uniform(0, 1))
            b = stub.SubmitProof(msg, timeout=60).job_id
            self.ledger.fault("resubmitted request ids")
            if a != b:
                # A failed or cancelled job does not hold its request_id (engine.c): the
                # second submission, a retry, proves again and is the request's answer.
                S = self.pb.AwaitProofResponse
                first = stub.AwaitProof(self.pb.AwaitProofRequest(job_id=a, timeout_ms=600000),
                                        timeout=660)
                if first.status not in (S.FAILED, S.CANCELLED):
                    self.ledger.bad(r, "request_id submitted twice made two jobs: %s (%s), %s"
                                    % (a, S.Status.Name(first.status), b))
                self.client.await_job(r, stub, b)
                return
            other = threading.Thread(target=self.guarded, args=(r, lambda s: self.client.await_job(r, s, b)))
            other.start()
            self.client.await_job(r, stub, a)
            other.join()

        self.guarded(r, go)

    def guarded(self, r, go):
        """go(stub) until r has an answer: resent with Prove after a restart."""
        epoch, stub = self.client.wait_up()
        try:
            go(stub)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNAVAILABLE and self.daemon.epoch == epoch:
                if r.answer is None:
                    self.ledger.refused(r, "gRPC %s: %s" % (e.code().name, e.details()))
        if r.answer is None:
            self.client.send(r)

    # ---- malformed requests ----

    def raw(self, name, payload):
        """Bytes sent as a Prove message: any status is the answer, never a proof."""
        r = self.ledger.new(None, None, "refusal")
        self.ledger.fault(name)
        while r.answer is None:
            epoch, _ = self.client.wait_up()
            call = Method(self.daemon.channel.unary_unary(
                PROVE, request_serializer=None, response_deserializer=self.pb.ProveResponse.FromString))
            try:
                res = call(payload, timeout=600).result
                if res.status == self.pb.AwaitProofResponse.COMPLETED:
                    self.ledger.bad(r, "%s answered with a proof" % name)
                self.ledger.refused(r, "%s: %s" % (name, res.error_message))
            except grpc.RpcError as e:
                if e.code() in TRANSPORT and self.daemon.epoch != epoch:
                    continue
                self.ledger.refused(r, "gRPC %s: %s" % (e.code().name, e.details()))

    def random_bytes(self):
        n = self.rng.randrange(1, 4096)
        self.raw("random-byte messages", bytes(self.rng.getrandbits(8) for _ in range(n)))

    def truncated(self):
        t = self.pick()
        r = self.pb.ProveRequest(submit=self.pb.SubmitProofRequest(request_id="x", **t.fields))
        data = r.SerializeToString()
        self.raw("truncated messages", data[: self.rng.randrange(1, len(data))])

    def refusal(self, name, t, fields):
        """A request that must be refused, or complete with a proof that verifies for t."""
        self.ledger.fault(name)
        self.client.send(self.ledger.new(t, fields, "refusal"))

    def wrong_kind(self):
        t = self.pick(["porep", "winning", "window", "snap"])
        kinds = [self.pb.POREP_SEAL_COMMIT, self.pb.SNAP_DEALS_UPDATE,
                 self.pb.WINDOW_POST_PARTITION, self.pb.WINNING_POST, 0, 9]
        kind = self.rng.choice([k for k in kinds if k != t.fields["proof_kind"]])
        self.refusal("wrong kinds", t, dict(t.fields, proof_kind=kind))

    def altered(self):
        t = self.pick(["porep", "winning", "window", "snap"])
        self.refusal("altered vanilla", t, t.alter)

    def oversized(self):
        """Far too many vanilla proofs (up to 500 times the request's, at most ~64 MiB: a
        512MiB SnapDeals request is 9.6 MB), a test circuit of 2M constraints, or once a
        run a message over the daemon's 256 MiB limit. The largest message the daemon
        reads is kept: its decoding stays in the allocator's arenas (soak.py's margin)."""
        t = self.pick(["winning", "snap"])
        choice = self.rng.randrange(3)
        if choice == 0:
            blobs = list(t.fields["vanilla_proofs"])
            n = max(4, min(500, (64 << 20) // max(1, sum(len(b) for b in blobs))))
            fields = dict(t.fields, vanilla_proofs=blobs * n)
        elif choice == 1 or self.oversized_big:
            fields = dict(proof_kind=self.pb.POREP_SEAL_COMMIT, vanilla_proof=test_record(1 << 21))
        else:  # once a run: more than the 256 MiB message limit
            self.oversized_big = True
            fields = dict(proof_kind=self.pb.POREP_SEAL_COMMIT, vanilla_proof=bytes(257 << 20))
        if choice != 2:
            size = self.pb.SubmitProofRequest(**fields).ByteSize()
            self.soak.largest_read = max(self.soak.largest_read, size)
        self.refusal("oversized inputs", t, fields)

    # ---- parameter files ----

    def corrupt_params(self):
        """A parameter file truncated or overwritten in the middle before its load: the
        circuit is refused with a status while the others are served; restored, it proves."""
        with self.params_lock:
            self._corrupt_params()

    def _corrupt_params(self):
        cid = "test-%d" % CORRUPT_CONSTRAINTS
        t = test_circuit(self.pb, CORRUPT_CONSTRAINTS, 1, self.rng.randrange(1 << 30))
        path = os.path.join(self.soak.param_cache, "cuzk-test-%d-dev.params" % CORRUPT_CONSTRAINTS)
        if not os.path.exists(path):
            self.client.send(self.new(t))  # made on first use
        if not os.path.exists(path):
            return
        self.evict(cid)
        backup = path + ".soak-backup"
        shutil.copyfile(path, backup)
        size = os.path.getsize(path)
        if self.rng.random() < 0.5:
            os.truncate(path, self.rng.randrange(size))
        else:
            with open(path, "r+b") as f:
                f.seek(self.rng.randrange(size // 4, size - 64))
                f.write(bytes(self.rng.getrandbits(8) for _ in range(64)))
        self.ledger.fault("corrupted parameter files")
        r = self.new(t, expect="refusal")
        self.client.send(r)
        if r.answer and r.answer[0] == "completed":
            self.ledger.bad(r, "proved with a corrupted parameter file")
        os.replace(backup, path)
        self.evict(cid)
        again = self.new(t)
        self.client.send(again)
        if again.answer and again.answer[0] != "completed" and ".params" in again.answer[1]:
            self.ledger.bad(again, "not proved after its parameter file was restored: %s"
                            % again.answer[1])

    def evict(self, cid):
        try:
            self.daemon.stub.EvictSRS(self.pb.EvictSrsRequest(circuit_id=cid), timeout=60)
        except grpc.RpcError:
            pass  # not loaded, or the daemon restarting: the next load reads the file

    def full_disk(self):
        """Development parameters written to a full disk (a 256 KiB tmpfs), by a second
        daemon: the request is refused with a status, no partial file is left, the daemon
        serves on and drains with exit 0. Needs root (mount); skipped and counted otherwise."""
        with self.disk_lock:
            self._full_disk()

    def _full_disk(self):
        root = os.path.join(self.soak.work, "full-disk")
        cache = os.path.join(root, "params")
        os.makedirs(cache, exist_ok=True)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", cache],
                          stderr=subprocess.DEVNULL).returncode != 0:
            self.ledger.fault("full disk skipped (mount needs root)")
            return
        try:
            d = self.soak.side_daemon(root, cache)
            r = self.new(test_circuit(self.pb, 2048, 1, 5), expect="refusal")
            try:
                msg = self.pb.ProveRequest(submit=self.client.submit_message(r, 2))
                self.client.record(r, d.stub.Prove(msg, timeout=600).result)
                d.stub.GetStatus(self.pb.GetStatusRequest(), timeout=1)
            except grpc.RpcError as e:
                self.ledger.bad(r, "full disk: %s %s" % (e.code(), e.details()))
            if r.answer and r.answer[0] == "completed":
                self.ledger.bad(r, "proved although its parameters could not be written")
            left = os.listdir(cache)
            if left:
                self.ledger.bad(r, "full disk left files behind: %s" % left)
            self.ledger.fault("full disk while writing parameters")
            if d.drain() != 0:
                self.ledger.bad(r, "the full-disk daemon did not drain with exit 0")
        finally:
            subprocess.run(["umount", cache])

    # ---- the daemon ----

    def sigkill(self):
        self.ledger.fault("SIGKILL + restart")
        self.daemon.kill()
        self.soak.restart()

    def sigterm(self):
        self.ledger.fault("SIGTERM drain + restart")
        self.daemon.drain()
        self.soak.restart()

    def small_budget(self):
        """A restart with a memory budget too small for the work (soak.TIGHT_BUDGET: the test
        circuits fit, no Filecoin kind's parameters do), one request of each kind sent in it (each
        must be answered: a proof, or a status naming the budget), then a normal restart.
        The other clients' requests meet the same epoch."""
        self.daemon.drain()
        self.soak.restart(tight=True)
        kinds = {}
        for t in self.soak.templates:
            kinds.setdefault(t.kind, t)
        for t in kinds.values():
            self.client.send(self.new(t))
        self.daemon.drain()
        self.soak.restart(tight=False)

    def cancel_queued(self):
        self.cancel(False)

    def cancel_running(self):
        self.cancel(True)

    def all(self, names=None):
        """(weight, fault) of every fault, or of those named."""
        every = [(3, self.disconnect), (3, self.deadline), (2, self.await_timeout),
                 (2, self.cancel_queued), (2, self.cancel_running),
                 (2, self.resubmit), (2, self.random_bytes), (2, self.truncated),
                 (2, self.wrong_kind), (2, self.altered), (1, self.oversized),
                 (1, self.sigkill), (1, self.sigterm), (0.5, self.small_budget),
                 (1, self.corrupt_params),
                 (0.3, self.full_disk)]
        return [(w, f) for w, f in every if names is None or f.__name__ in names]


def choose(rng, weighted):
    total = sum(w for w, _ in weighted)
    x = rng.uniform(0, total)
    for w, f in weighted:
        x -= w
        if x <= 0:
            return f
    return weighted[-1][1]

