"""soak_ledger.py - every request the soak sends, its answers, and what was wrong.

A request is one request_id. It must get exactly one answer: a COMPLETED
proof, or a status (FAILED / CANCELLED / a gRPC status code); a transport
error is no answer (the caller resends when the daemon was killed). A
second answer to the same request is wrong unless it is byte-identical to
the first (the daemon's idempotent request_id). A COMPLETED proof must have
192 bytes per partition, be no other request's proof, and pass `cuzk verify`
(soak_check.py); a request that had to be refused (malformed, altered) must
not complete with a proof that fails verification.
"""

import collections
import threading
import time


class Request:
    def __init__(self, rid, template, fields, expect):
        self.rid, self.template, self.fields = rid, template, fields
        self.expect = expect  # "proof" (may still be refused) or "refusal"
        self.answer = None  # ("completed", proof) or ("refused", message)
        self.resent = 0
        self.sent_at = time.time()


class Ledger:
    def __init__(self, prefix):
        self.prefix = prefix
        self.lock = threading.Lock()
        self.requests = []
        self.proofs = {}  # proof bytes -> request id
        self.wrong = []
        self.faults = collections.Counter()
        self.refusals = collections.Counter()
        self.n = 0

    def new(self, template, fields, expect="proof"):
        with self.lock:
            self.n += 1
            r = Request("%s-%06d" % (self.prefix, self.n), template, fields, expect)
            self.requests.append(r)
        return r

    def fault(self, name, n=1):
        with self.lock:
            self.faults[name] += n

    def bad(self, r, what):
        with self.lock:
            self.wrong.append("%s (%s): %s" % (r.rid, r.template.name if r.template else "-", what))

    def refused(self, r, message):
        """A status answer; False when the request already had a different answer."""
        return self._answer(r, ("refused", message))

    def completed(self, r, proof):
        """A proof answer; True when it is the request's first (to be verified)."""
        with self.lock:
            other = self.proofs.get(proof)
            if other is not None and other != r.rid:
                self.wrong.append("%s: answered with %s's proof" % (r.rid, other))
                return False
            self.proofs[proof] = r.rid
        if not self._answer(r, ("completed", proof)):
            return False
        n = r.template.partitions if r.template else 1
        if len(proof) != 192 * n:
            self.bad(r, "proof of %d bytes for %d partition(s)" % (len(proof), n))
            return False
        return True

    def _answer(self, r, answer):
        with self.lock:
            if r.answer is None:
                r.answer = answer
                if answer[0] == "refused":
                    self.refusals[answer[1][:60]] += 1
                return True
            same = r.answer == answer
        if not same:
            self.bad(r, "answered twice: %s then %s" % (r.answer[0], answer[0]))
        return False

    def oldest_open(self):
        """(seconds, request) of the oldest request with no answer yet, or None."""
        with self.lock:
            open_ = [r for r in self.requests if r.answer is None]
        if not open_:
            return None
        r = min(open_, key=lambda r: r.sent_at)
        return time.time() - r.sent_at, r

    def totals(self):
        with self.lock:
            sent = len(self.requests)
            done = sum(1 for r in self.requests if r.answer and r.answer[0] == "completed")
            refused = sum(1 for r in self.requests if r.answer and r.answer[0] == "refused")
            lost = [r.rid for r in self.requests if r.answer is None]
        return sent, done + refused, done, refused, lost
