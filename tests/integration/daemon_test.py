"""daemon_test.py - cuzk-daemon driven by a gRPC client we did not write.

The client is Debian's python3-grpcio with stubs protoc generated from our
proving.proto (BUILD/proto-py). The daemons run with --test-circuits: the
synthetic "test-<constraints>" family goes through the whole pipeline
(SRS from the cache, synthesis, CPU prover, self-verification) without the
Filecoin circuits. Each test states the behaviour of issue 5 it checks.

usage: daemon_test.py BUILD_DIR [TEST ...]
"""

import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.request
import uuid

BUILD = sys.argv[1]
sys.path.insert(0, os.path.join(BUILD, "proto-py"))

import grpc  # noqa: E402
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

DAEMON = os.path.join(BUILD, "tools", "cuzk-daemon")
MiB = 1 << 20
# Curio's client limits, and a little more so the 300 MB case reaches the server.
CLIENT_OPTIONS = [
    ("grpc.max_send_message_length", 320 * MiB),
    ("grpc.max_receive_message_length", 320 * MiB),
]
# Circuit sizes (2 cores): ~70 ms per test-2048 partition, ~420 ms per test-16384.
SMALL, LARGE = 2048, 16384
NO_BAD = 0xFFFFFFFF
Status = pb.AwaitProofResponse


def record(constraints, partitions=1, seed=1, bad=NO_BAD):
    """The test family's vanilla proof (engine_provider.h)."""
    return b"CUZKTEST" + struct.pack("<IIQII", constraints, partitions, seed, bad, 0)


def request(kind, constraints, partitions=1, **kw):
    bad = kw.pop("bad", NO_BAD)
    return pb.SubmitProofRequest(
        request_id=kw.pop("request_id", "test-" + uuid.uuid4().hex),
        proof_kind=kind,
        vanilla_proof=record(constraints, partitions, kw.pop("seed", 7), bad),
        **kw,
    )


class Daemon:
    """A cuzk-daemon on a unix socket in its own directory."""

    def __init__(self, root, name, params, **sections):
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir)
        self.sock = os.path.join(self.dir, "d.sock")
        self.http = None
        cfg = {
            "daemon": {"listen": "unix://" + self.sock},
            "srs": {"param_cache": params},
            "memory": {"total_budget": "1GiB"},
            # the CPU backend also where a GPU is present: the tests assert its device
            "gpus": {"backend": "cpu"},
        }
        for table, keys in sections.items():
            cfg.setdefault(table, {}).update(keys)
        self.config = os.path.join(self.dir, "cuzk.toml")
        with open(self.config, "w") as f:
            for table, keys in cfg.items():
                f.write("[%s]\n" % table)
                for k, v in keys.items():
                    f.write("%s = %s\n" % (k, toml_value(v)))
        self.log_path = os.path.join(self.dir, "daemon.log")
        self.proc = subprocess.Popen(
            [DAEMON, "-c", self.config, "--test-circuits"],
            stderr=open(self.log_path, "w"),
        )
        self.channel = grpc.insecure_channel("unix://" + self.sock, options=CLIENT_OPTIONS)
        self.stub = pbg.ProvingEngineStub(self.channel)
        deadline = time.time() + 20
        while True:
            try:
                self.stub.GetStatus(pb.GetStatusRequest(), timeout=1)
                break
            except grpc.RpcError:
                if time.time() > deadline or self.proc.poll() is not None:
                    raise AssertionError("daemon did not start:\n" + self.log())
                time.sleep(0.05)

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def rss(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        raise AssertionError("no VmRSS")

    def stop(self):
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=60)
        assert rc == 0, "daemon exit status %d:\n%s" % (rc, self.log()[-3000:])


def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, list):
        return "[%s]" % ", ".join(toml_value(x) for x in v)
    return '"%s"' % v


def expect_code(code, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except grpc.RpcError as e:
        assert e.code() == code, "expected %s, got %s: %s" % (code, e.code(), e.details())
        return e.details()
    raise AssertionError("expected %s, the call succeeded" % code)


def still_serving(d):
    st = d.stub.GetStatus(pb.GetStatusRequest(), timeout=10)
    assert st.gpus, "GetStatus lists no device"


def wait_until(pred, what, timeout=20):
    deadline = time.time() + timeout
    while not pred():
        assert time.time() < deadline, "timed out waiting for " + what
        time.sleep(0.02)


def in_progress(d, kind_name):
    st = d.stub.GetStatus(pb.GetStatusRequest())
    return sum(q.in_progress for q in st.queues if q.proof_kind == kind_name)


def metric(d, name):
    text = d.stub.GetMetrics(pb.GetMetricsRequest()).prometheus_text
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError("metric %s missing:\n%s" % (name, text))


# ---- tests on the main daemon (batch size 1) ----


def test_status(d):
    """GetStatus: the CPU device (idle, in service), four queues, counters, uptime."""
    st = d.stub.GetStatus(pb.GetStatusRequest())
    assert len(st.gpus) == 1 and st.gpus[0].name.startswith("cpu"), st
    g = st.gpus[0]
    assert g.state == "idle" and not g.error and g.queued_partitions == 0, g
    kinds = sorted(q.proof_kind for q in st.queues)
    assert kinds == sorted(
        ["POREP_SEAL_COMMIT", "SNAP_DEALS_UPDATE", "WINDOW_POST_PARTITION", "WINNING_POST"]
    ), kinds
    tiers = {s.circuit_id: s.tier for s in st.loaded_srs}
    assert tiers.get("test-%d" % SMALL) == pb.SRSStatus.WARM, st.loaded_srs


def test_prove(d):
    """Prove: every partition proved, self-verified and concatenated."""
    for kind in (pb.POREP_SEAL_COMMIT, pb.WINNING_POST, pb.SNAP_DEALS_UPDATE):
        r = d.stub.Prove(pb.ProveRequest(submit=request(kind, SMALL, 3))).result
        assert r.status == Status.COMPLETED, r
        assert len(r.proof) == 3 * 192, len(r.proof)
        parts = [r.proof[i * 192 : (i + 1) * 192] for i in range(3)]
        assert len(set(parts)) == 3, "partition proofs repeat"
        assert r.gpu_compute_ms > 0, r
        spans = (r.queue_wait_ms, r.srs_load_ms, r.synthesis_ms, r.gpu_compute_ms)
        assert all(t <= r.total_ms for t in spans), r  # wall-clock spans within the job


def test_verification_failure(d):
    """A partition whose proof does not verify fails its job alone, by number."""
    r = d.stub.Prove(pb.ProveRequest(submit=request(pb.WINDOW_POST_PARTITION, SMALL, 3, bad=1))).result
    assert r.status == Status.FAILED and not r.proof, r
    assert "partition 1" in r.error_message and "verif" in r.error_message, r.error_message
    ok = d.stub.Prove(pb.ProveRequest(submit=request(pb.WINDOW_POST_PARTITION, SMALL, 1))).result
    assert ok.status == Status.COMPLETED, ok


def test_submit_await(d):
    """SubmitProof is idempotent on request_id; AwaitProof honours timeout_ms."""
    req = request(pb.POREP_SEAL_COMMIT, LARGE, 3)
    a = d.stub.SubmitProof(req)
    b = d.stub.SubmitProof(req)
    assert a.job_id and a.job_id == b.job_id, (a, b)
    t0 = time.time()
    r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=a.job_id, timeout_ms=100))
    assert r.status == Status.TIMEOUT, r
    assert 0.09 < time.time() - t0 < 1.5, time.time() - t0
    r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=a.job_id))
    assert r.status == Status.COMPLETED and len(r.proof) == 3 * 192, r
    again = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=a.job_id, timeout_ms=10))
    assert again.proof == r.proof, "a finished result must stay readable"
    expect_code(grpc.StatusCode.NOT_FOUND, d.stub.AwaitProof, pb.AwaitProofRequest(job_id="nope"))


def test_cancel(d):
    """CancelProof: a queued job is dropped, a running one stops, memory returns."""
    running = d.stub.SubmitProof(request(pb.POREP_SEAL_COMMIT, LARGE, 8))
    queued = d.stub.SubmitProof(request(pb.POREP_SEAL_COMMIT, LARGE, 8))
    wait_until(lambda: in_progress(d, "POREP_SEAL_COMMIT") >= 1, "the first job to start")
    details = expect_code(
        grpc.StatusCode.FAILED_PRECONDITION,
        d.stub.EvictSRS,
        pb.EvictSrsRequest(circuit_id="test-%d" % LARGE),
    )
    assert "in use" in details, details
    c = d.stub.CancelProof(pb.CancelProofRequest(job_id=queued.job_id))
    assert not c.was_running, c
    r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=queued.job_id, timeout_ms=2000))
    assert r.status == Status.CANCELLED, r
    t0 = time.time()
    c = d.stub.CancelProof(pb.CancelProofRequest(job_id=running.job_id))
    assert c.was_running, c
    r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=running.job_id, timeout_ms=5000))
    assert r.status == Status.CANCELLED and not r.proof, r
    # Work in flight stops at the next partition boundary (one ~0.5 s partition).
    wait_until(lambda: in_progress(d, "POREP_SEAL_COMMIT") == 0, "the pipeline to drain", 5)
    wait_until(
        lambda: metric(d, "cuzk_memory_used_bytes") - metric(d, "cuzk_memory_pool_bytes")
        <= srs_bytes(d),
        "the partitions' memory to return",
        5,
    )
    assert time.time() - t0 < 4, "cancel took %.1f s" % (time.time() - t0)
    expect_code(grpc.StatusCode.NOT_FOUND, d.stub.CancelProof, pb.CancelProofRequest(job_id="x"))


def srs_bytes(d):
    st = d.stub.GetStatus(pb.GetStatusRequest())
    return sum(s.size_bytes for s in st.loaded_srs if s.tier != pb.SRSStatus.COLD)


def test_priorities(d):
    """A CRITICAL Winning PoSt overtakes queued PoRep partitions."""
    done = {}
    porep = [d.stub.SubmitProof(request(pb.POREP_SEAL_COMMIT, LARGE, n)) for n in (6, 3)]
    wait_until(lambda: in_progress(d, "POREP_SEAL_COMMIT") >= 1, "PoRep to start")
    winning = d.stub.SubmitProof(
        request(pb.WINNING_POST, SMALL, 1, priority=pb.CRITICAL)
    )
    assert winning.queue_position == 0, winning

    def wait(name, job):
        r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=job.job_id))
        done[name] = (time.time(), r.status)

    threads = [threading.Thread(target=wait, args=("winning", winning))]
    threads += [threading.Thread(target=wait, args=("porep%d" % i, j)) for i, j in enumerate(porep)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(s == Status.COMPLETED for _, s in done.values()), done
    first_porep = min(t for name, (t, _) in done.items() if name != "winning")
    assert done["winning"][0] < first_porep, "winning finished after a PoRep job: %s" % done


def test_srs(d):
    """PreloadSRS / EvictSRS really load and free; tiers follow, and the residency
    counters (SRSStatus fields 100-109) count the load and the eviction; a read-ahead's
    priority is checked."""
    cid = "test-4096"
    d.stub.EvictSRS(pb.EvictSrsRequest(circuit_id=cid))

    def entry():
        return next(s for s in d.stub.GetStatus(pb.GetStatusRequest()).loaded_srs if s.circuit_id == cid)

    p = d.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id=cid))
    assert not p.already_loaded, p
    s0 = entry()
    assert s0.loads >= 1 and s0.load_seconds >= 0 and not s0.pinned and not s0.loading, s0
    p = d.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id=cid))
    assert p.already_loaded and p.load_time_ms < 100, p
    assert s0.loads_abandoned == 0 and s0.abandoned_bytes == 0 and s0.read_bytes == 0, s0
    # a read-ahead (fields 100-101): held at HIGH for a second; a priority past CRITICAL refused
    p = d.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id=cid, priority=3, hold_seconds=1))
    assert p.already_loaded, p
    expect_code(grpc.StatusCode.INVALID_ARGUMENT, d.stub.PreloadSRS,
                pb.PreloadSrsRequest(circuit_id=cid, priority=9))
    before = metric(d, "cuzk_memory_used_bytes")
    e = d.stub.EvictSRS(pb.EvictSrsRequest(circuit_id=cid))
    assert e.was_loaded and e.freed_bytes > 0, e
    assert metric(d, "cuzk_memory_used_bytes") == before - e.freed_bytes
    tiers = {s.circuit_id: s.tier for s in d.stub.GetStatus(pb.GetStatusRequest()).loaded_srs}
    assert tiers[cid] == pb.SRSStatus.COLD, tiers
    s1 = entry()
    assert s1.evictions == s0.evictions + 1 and s1.loads == s0.loads, (s0, s1)
    assert metric(d, 'cuzk_srs_evictions_total{circuit="%s"}' % cid) == s1.evictions
    e = d.stub.EvictSRS(pb.EvictSrsRequest(circuit_id=cid))
    assert not e.was_loaded and e.freed_bytes == 0, e
    for bad in ("porep-999g", "test-5", ""):
        expect_code(grpc.StatusCode.NOT_FOUND, d.stub.PreloadSRS, pb.PreloadSrsRequest(circuit_id=bad))


def test_bad_input(d):
    """Garbage, wrong kinds, truncated and huge inputs, disconnects: clear errors, daemon serves on."""
    raw = d.channel.unary_unary("/cuzk.v1.ProvingEngine/SubmitProof")
    details = expect_code(grpc.StatusCode.INVALID_ARGUMENT, raw, b"\xff\xff\xff\xff")
    assert "malformed SubmitProofRequest" in details, details
    still_serving(d)
    expect_code(grpc.StatusCode.UNIMPLEMENTED, d.channel.unary_unary("/cuzk.v1.ProvingEngine/Nope"), b"")
    for kind in (pb.PROOF_KIND_UNSPECIFIED, 99):
        details = expect_code(
            grpc.StatusCode.INVALID_ARGUMENT, d.stub.SubmitProof, request(kind, SMALL)
        )
        assert "proof_kind" in details, details
    empty = pb.SubmitProofRequest(request_id="e", proof_kind=pb.POREP_SEAL_COMMIT)
    assert "no vanilla proof" in expect_code(grpc.StatusCode.INVALID_ARGUMENT, d.stub.SubmitProof, empty)
    cases = [
        (pb.POREP_SEAL_COMMIT, b"{not json", "porep proof request rejected"),
        (pb.WINNING_POST, b"\x00" * 100, "randomness: 0 bytes, expected 32"),
        (pb.WINDOW_POST_PARTITION, b"\x00" * 100, "neither registered_proof nor sector_size"),
        (pb.SNAP_DEALS_UPDATE, record(SMALL)[:20], "20 bytes, expected 32"),
        (pb.SNAP_DEALS_UPDATE, b"\x00" * 100, "comm_r_old: 0 bytes, expected 32"),
        (pb.POREP_SEAL_COMMIT, record(SMALL) + b"x", "33 bytes, expected 32"),
        (pb.POREP_SEAL_COMMIT, record(100), "100 constraints"),
        (pb.POREP_SEAL_COMMIT, record(SMALL, 0), "0 partitions"),
        (pb.POREP_SEAL_COMMIT, record(SMALL)[:31] + b"\x01", "unsatisfied partition 16777216 of 1"),
    ]
    for kind, vanilla, message in cases:
        req = pb.SubmitProofRequest(request_id=uuid.uuid4().hex, proof_kind=kind, vanilla_proof=vanilla)
        r = d.stub.Prove(pb.ProveRequest(submit=req)).result
        assert r.status == Status.FAILED and message in r.error_message, (message, r)
    still_serving(d)


def test_huge_and_disconnect(d):
    """A 200 MB request fails cleanly, 300 MB exceeds the limit, a vanished client costs nothing."""
    huge = record(SMALL) + bytes(200 * 1000 * 1000)
    req = pb.SubmitProofRequest(request_id=uuid.uuid4().hex, proof_kind=pb.POREP_SEAL_COMMIT, vanilla_proof=huge)
    r = d.stub.Prove(pb.ProveRequest(submit=req), timeout=60).result
    assert r.status == Status.FAILED and "expected 32" in r.error_message, r
    del req, huge
    req = pb.SubmitProofRequest(request_id="big", proof_kind=pb.POREP_SEAL_COMMIT, vanilla_proof=bytes(300 * MiB))
    expect_code(grpc.StatusCode.RESOURCE_EXHAUSTED, d.stub.SubmitProof, req, timeout=60)
    del req
    still_serving(d)
    # A client that gives up mid-Prove (deadline) and one that drops the socket.
    expect_code(
        grpc.StatusCode.DEADLINE_EXCEEDED,
        d.stub.Prove,
        pb.ProveRequest(submit=request(pb.POREP_SEAL_COMMIT, LARGE, 4)),
        timeout=0.05,  # far below a 4-partition proof, however fast the prover gets
    )
    s = socket.socket(socket.AF_UNIX)
    s.connect(d.sock)
    s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x12\x04\x00\x00\x00\x00\x00garbage")
    s.close()
    still_serving(d)
    r = d.stub.Prove(pb.ProveRequest(submit=request(pb.WINNING_POST, SMALL))).result
    assert r.status == Status.COMPLETED, r


def test_load(d):
    """32 concurrent clients: every proof correct; RSS back near its start."""

    def round_of_32():
        results = [None] * 32

        def one(i):
            ch = grpc.insecure_channel("unix://" + d.sock, options=CLIENT_OPTIONS)
            stub = pbg.ProvingEngineStub(ch)
            results[i] = stub.Prove(pb.ProveRequest(submit=request(pb.WINNING_POST, SMALL, 1, seed=i))).result
            ch.close()

        threads = [threading.Thread(target=one, args=(i,)) for i in range(32)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(r.status == Status.COMPLETED and len(r.proof) == 192 for r in results), results
        assert len({r.proof for r in results}) == 32, "proofs repeat"

    round_of_32()
    start = d.rss()
    round_of_32()
    round_of_32()
    grown = d.rss() - start
    assert grown < 32 * MiB, "RSS grew by %d MiB over two rounds" % (grown // MiB)
    print("    RSS %d MiB, +%d KiB after 64 more proofs" % (start // MiB, grown // 1024))


def test_metrics_and_http(d):
    """GetMetrics and the HTTP status page carry the cuzk metric names, the
    pipeline and the device's partitions and busy time (GetStatus too)."""
    g = d.stub.GetStatus(pb.GetStatusRequest()).gpus[0]
    assert g.partitions_proved > 0 and g.busy_ms > 0 and g.state == "idle", g
    text = d.stub.GetMetrics(pb.GetMetricsRequest()).prometheus_text
    for name in (
        "cuzk_proofs_completed_total",
        "cuzk_proofs_failed_total",
        "cuzk_uptime_seconds",
        "cuzk_queue_depth",
        "cuzk_proof_duration_seconds_sum",
        'cuzk_proofs_completed_by_kind_total{kind="porep"}',
        'cuzk_gpu_up{device="0"} 1',
        'cuzk_gpu_partitions_total{device="0"} %d' % g.partitions_proved,
    ):
        assert name in text, name
    assert metric(d, "cuzk_proofs_completed_total") > 0
    import json

    body = urllib.request.urlopen("http://%s/status" % d.http, timeout=10).read()
    status = json.loads(body)
    assert {"memory", "pipeline", "workers", "jobs", "srs"} <= set(status), status.keys()
    assert any(j["state"] == "completed" for j in status["jobs"]), status["jobs"][:3]
    dev = status["devices"][0]
    assert dev["state"] == "idle" and dev["partitions"] >= g.partitions_proved, dev
    body = urllib.request.urlopen("http://%s/metrics" % d.http, timeout=10).read().decode()
    assert "cuzk_proofs_completed_total" in body


# ---- tests on their own daemons ----


def test_batching(root, params):
    """max_batch_size = 2: two PoRep requests prove as one batch; one alone flushes after the wait."""
    d = Daemon(root, "batch", params, scheduler={"max_batch_size": 2, "max_batch_wait_ms": 1500})
    try:
        a = d.stub.SubmitProof(request(pb.POREP_SEAL_COMMIT, SMALL, 2))
        b = d.stub.SubmitProof(request(pb.POREP_SEAL_COMMIT, SMALL, 2))
        for job in (a, b):
            r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=job.job_id, timeout_ms=20000))
            assert r.status == Status.COMPLETED and len(r.proof) == 384, r
            assert r.queue_wait_ms < 1000, "a full batch waited %d ms" % r.queue_wait_ms
        assert "SYNTH_START,%s+%s,partition=1" % (a.job_id, b.job_id) in d.log(), d.log()[-2000:]
        r = d.stub.Prove(pb.ProveRequest(submit=request(pb.POREP_SEAL_COMMIT, SMALL, 1))).result
        assert r.status == Status.COMPLETED and r.queue_wait_ms >= 1400, r
        # A non-batchable request flushes the pending group at once.
        lone = d.stub.SubmitProof(request(pb.POREP_SEAL_COMMIT, SMALL, 1))
        w = d.stub.Prove(pb.ProveRequest(submit=request(pb.WINNING_POST, SMALL, 1))).result
        r = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=lone.job_id))
        assert w.status == r.status == Status.COMPLETED and r.queue_wait_ms < 1000, (w, r)
    finally:
        d.stop()


def test_shutdown(root, params):
    """SIGTERM: no new work, the running job finishes within the grace, exit status 0."""
    d = Daemon(root, "shutdown", params, daemon={"shutdown_grace": "20s"})
    job = d.stub.SubmitProof(request(pb.POREP_SEAL_COMMIT, LARGE, 3))
    wait_until(lambda: in_progress(d, "POREP_SEAL_COMMIT") >= 1, "the job to start")
    result = {}

    def wait():
        result["r"] = d.stub.AwaitProof(pb.AwaitProofRequest(job_id=job.job_id))

    t = threading.Thread(target=wait)
    t.start()
    time.sleep(0.2)
    d.proc.send_signal(signal.SIGTERM)
    t.join(30)
    assert result["r"].status == Status.COMPLETED, result
    assert d.proc.wait(timeout=30) == 0, d.log()[-2000:]
    d.stop()


def test_preload_config(root, params):
    """srs.preload: the daemon loads the circuit and records its shape as it starts, so the
    first proof records nothing; an unknown id stops the start with a message naming it."""
    cid = "test-%d" % SMALL
    d = Daemon(root, "preload", params, srs={"preload": [cid], "pinned": ["test-4096"]})
    try:

        def warm():
            st = d.stub.GetStatus(pb.GetStatusRequest())
            return any(s.circuit_id == cid and s.tier == pb.SRSStatus.WARM for s in st.loaded_srs)

        wait_until(warm, "the preload of " + cid, timeout=60)
        wait_until(lambda: "srs.preload %s: loaded" % cid in d.log(), "the preload's log line")
        r = d.stub.Prove(pb.ProveRequest(submit=request(pb.POREP_SEAL_COMMIT, SMALL, 2))).result
        assert r.status == Status.COMPLETED, r
        log, line = d.log(), "srs %s: recording the circuit's shape" % cid
        assert log.count(line) == 1, "the shape was recorded %d times:\n%s" % (log.count(line), log)
        assert log.find(line) < log.find("srs.preload %s: loaded" % cid), log
        wait_until(lambda: "srs.pinned test-4096: loaded" in d.log(), "the pinned set's load")
        pinned = [s for s in d.stub.GetStatus(pb.GetStatusRequest()).loaded_srs if s.pinned]
        assert [s.circuit_id for s in pinned] == ["test-4096"], pinned
    finally:
        d.stop()
    bad = os.path.join(root, "preload-bad.toml")
    with open(bad, "w") as f:
        f.write('[daemon]\nlisten = "unix://%s/bad.sock"\n[srs]\nparam_cache = "%s"\n' % (root, params))
        f.write('preload = ["%s", "porep-999g"]\n' % cid)
    p = subprocess.run([DAEMON, "-c", bad, "--test-circuits"], capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "srs.preload: no circuit 'porep-999g'" in p.stderr, (p.returncode, p.stderr)


def test_missing_param_cache(root, params):
    """Issue 25: a param cache that does not exist yet is made at the start (with its parents)
    and development parameters are written into it; one that cannot be made stops the start
    with a message naming it."""
    missing = os.path.join(root, "new-cache", "deeper", "params")
    d = Daemon(root, "missing-cache", missing)
    try:
        assert os.path.isdir(missing), "the daemon did not make " + missing
        r = d.stub.Prove(pb.ProveRequest(submit=request(pb.WINNING_POST, 1024, 1)), timeout=120).result
        assert r.status == Status.COMPLETED, r
        assert os.path.exists(os.path.join(missing, "cuzk-test-1024-dev.params")), os.listdir(missing)
    finally:
        d.stop()
    blocker = os.path.join(root, "a-file")
    open(blocker, "w").close()
    bad = os.path.join(root, "cache-bad.toml")
    with open(bad, "w") as f:
        f.write('[daemon]\nlisten = "unix://%s/bad2.sock"\n[srs]\nparam_cache = "%s/sub"\n'
                % (root, blocker))
    p = subprocess.run([DAEMON, "-c", bad, "--dev-params"], capture_output=True, text=True, timeout=60)
    assert p.returncode != 0, p.stderr
    assert "srs.param_cache: %s: not a folder" % blocker in p.stderr, p.stderr


MAIN_TESTS = [
    test_status,
    test_prove,
    test_verification_failure,
    test_submit_await,
    test_cancel,
    test_priorities,
    test_srs,
    test_bad_input,
    test_huge_and_disconnect,
    test_load,
    test_metrics_and_http,
]
OWN_TESTS = [test_batching, test_shutdown, test_preload_config, test_missing_param_cache]


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run(name, fn, *args):
    t0 = time.time()
    try:
        fn(*args)
        print("ok   %-28s %5.1f s" % (name, time.time() - t0), flush=True)
        return True
    except Exception:
        print("FAIL %-28s %5.1f s" % (name, time.time() - t0), flush=True)
        traceback.print_exc()
        return False


def main():
    wanted = set(sys.argv[2:])
    root = tempfile.mkdtemp(prefix="cuzk-daemon-test-")
    params = os.path.join(root, "params")
    os.makedirs(params)
    http = "127.0.0.1:%d" % free_port()
    d = Daemon(root, "main", params, daemon={"status_listen": http})
    d.http = http
    ok = True
    try:
        # Development parameters once for the suite (made on first use).
        for cid in ("test-%d" % SMALL, "test-%d" % LARGE):
            d.stub.PreloadSRS(pb.PreloadSrsRequest(circuit_id=cid), timeout=120)
        for fn in MAIN_TESTS:
            if not wanted or fn.__name__ in wanted:
                ok &= run(fn.__name__, fn, d)
    finally:
        d.stop()
    for fn in OWN_TESTS:
        if not wanted or fn.__name__ in wanted:
            ok &= run(fn.__name__, fn, root, params)
    if ok:
        subprocess.run(["rm", "-rf", root])
    else:
        print("daemon logs kept in", root)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
