"""soak_client.py - how the soak sends one request and records its one answer.

send() calls Prove (or SubmitProof + AwaitProof) and keeps going until the
request has an answer: a transport error while the daemon was being killed
or drained (its epoch ended) is resent with the same request_id, as Curio
resends; a transport error while the daemon is up is retried a few times
and otherwise leaves the request unanswered (lost). A COMPLETED proof is
written to the work folder and queued for `cuzk verify`. send() says which
of the three it was, so that a client can back off after a refusal as
Curio's task retries do.
"""

import os
import time

import grpc

PROVE_TIMEOUT = 1800
TRANSPORT = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)


class Client:
    def __init__(self, pb, daemon, ledger, checker):
        self.pb, self.daemon, self.ledger, self.checker = pb, daemon, ledger, checker

    def submit_message(self, r, priority):
        return self.pb.SubmitProofRequest(request_id=r.rid, priority=priority, **r.fields)

    def wait_up(self, limit=600):
        deadline = time.time() + limit
        while not self.daemon.up:
            if time.time() > deadline:
                raise RuntimeError("daemon down for %d s" % limit)
            time.sleep(0.1)
        return self.daemon.epoch, self.daemon.stub

    def record(self, r, result):
        """One AwaitProofResponse for r: "completed" or "refused"."""
        S = self.pb.AwaitProofResponse
        if result.status == S.COMPLETED:
            if self.ledger.completed(r, result.proof):
                self.checker.check(r, result.proof)
            return "completed"
        if result.status == S.TIMEOUT:
            raise AssertionError("record() given a TIMEOUT")
        name = S.Status.Name(result.status)
        self.ledger.refused(r, "%s: %s" % (name, result.error_message))
        return "refused"

    def transport_failed(self, r, epoch, e, retries):
        """True to resend r after a transport error; False leaves it unanswered."""
        if self.daemon.epoch != epoch or not self.daemon.up:
            r.resent += 1
            self.ledger.fault("resent after restart")
            return True
        if retries < 3:
            time.sleep(1)
            return True
        self.ledger.bad(r, "transport error while the daemon served: %s %s"
                        % (e.code(), e.details()))
        return False

    def send(self, r, priority=2, submit=False):
        """r until it has its answer: "completed", "refused" or "lost"."""
        retries = 0
        while True:
            epoch, stub = self.wait_up()
            try:
                if submit:
                    return self.submit_await(r, stub, priority)
                msg = self.pb.ProveRequest(submit=self.submit_message(r, priority))
                return self.record(r, stub.Prove(msg, timeout=PROVE_TIMEOUT).result)
            except grpc.RpcError as e:
                ended = self.daemon.epoch != epoch or not self.daemon.up
                if e.code() not in TRANSPORT and not ended:
                    self.ledger.refused(r, "gRPC %s: %s" % (e.code().name, e.details()))
                    return "refused"
                if not self.transport_failed(r, epoch, e, retries):
                    return "lost"
                retries += 1

    def submit_await(self, r, stub, priority, short_awaits=0):
        job = stub.SubmitProof(self.submit_message(r, priority), timeout=60).job_id
        return self.await_job(r, stub, job, short_awaits)

    def await_job(self, r, stub, job, short_awaits=0):
        """AwaitProof until the job ends; the first short_awaits wait 10 ms (TIMEOUT expected)."""
        S = self.pb.AwaitProofResponse
        while True:
            ms = 10 if short_awaits > 0 else 600000
            short_awaits -= 1
            res = stub.AwaitProof(self.pb.AwaitProofRequest(job_id=job, timeout_ms=ms),
                                  timeout=ms / 1000 + 60)
            if res.status != S.TIMEOUT:
                return self.record(r, res)
            if ms == 10:
                self.ledger.fault("await timeouts")


def proof_path(root, rid):
    return os.path.join(root, "ok", rid + ".bin")
