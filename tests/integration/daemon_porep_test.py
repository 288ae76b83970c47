"""daemon_porep_test.py - real Filecoin proofs through cuzk-daemon.

cuzk-seal seals a 2KiB sector and writes its C1 output (c1.json wrapper);
a cuzk-daemon started with --dev-params on BUILD/param-cache (shared with
filecoin.sh, filecoin_post.sh and filecoin_snap.sh; development parameters
are made on first use, a few minutes on 2 cores) proves it for Debian's
python3-grpcio client, and the proof is checked independently by `cuzk
verify porep` (exit 0), and rejected for another sector's C1 (exit 1).
Requests that do not fit the C1 (sector size, registered proof) or are not
a C1 at all, sent as the bare SealCommitPhase1Output JSON or as garbage,
and a C1 with one tree-R path sibling altered (the daemon's native check
names partition, challenge, node and the path), fail with a message while
the daemon keeps serving, and proves the good C1 next; SIGTERM stops it
with exit status 0.

Winning PoSt, Window PoSt (three sectors: two partition requests) and
SnapDeals 2KiB vanilla proofs from `cuzk-bench gen-vanilla` are proved
through Prove as Curio sends them (vanilla_proofs, randomness,
commitments, registered_proof), each proof verified independently with
`cuzk verify --kind ...` and rejected for other public inputs; a Winning
PoSt blob with one path sibling altered and a Window PoSt partition with
one sector's comm_c altered are refused by the daemon's native check at
once (well under a second), the message naming sector, challenge and
fault; a SnapDeals
partition proof with an apex leaf altered is refused by the daemon's native
check (update_verify.h) within two seconds, the fault named.

usage: daemon_porep_test.py BUILD_DIR
"""

import base64
import json
import os
import re
import signal
import subprocess
import sys
import time
import traceback
import uuid

BUILD = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(BUILD, "proto-py"))

import grpc  # noqa: E402
from cuzk.v1 import proving_pb2 as pb  # noqa: E402
from cuzk.v1 import proving_pb2_grpc as pbg  # noqa: E402

TOOLS = os.path.join(BUILD, "tools")
WORK = os.path.join(BUILD, "daemon-porep-work")
CACHE = os.path.join(BUILD, "param-cache")
Status = pb.AwaitProofResponse
PROOF_BYTES = 192  # one Groth16 proof per partition
# Registered seal proof ids (filecoin.md): 5 sizes per API group.
SIZES = ["2KiB", "8MiB", "512MiB", "32GiB", "64GiB"]
GROUPS = ["V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep"]
# Parameter setup on first use, then synthesis and proof: generous on a loaded machine.
PROVE_TIMEOUT = 1500


def seal_proof_id(name):
    for g, group in enumerate(GROUPS):
        for s, size in enumerate(SIZES):
            if name == "StackedDrg%s%s" % (size, group):
                return 5 * g + s
    raise AssertionError("unknown registered proof " + name)


def seal(seed, name):
    """A sealed 2KiB sector's C1: (wrapper bytes, bare JSON bytes, parsed bare)."""
    path = os.path.join(WORK, name)
    subprocess.run(
        [os.path.join(TOOLS, "cuzk-seal"), "seal", "--sector-size", "2KiB", "--seed", str(seed),
         "--c1", path, "-o", os.path.join(WORK, name + ".sector")],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    with open(path, "rb") as f:
        wrapper = f.read()
    bare = base64.b64decode(json.loads(wrapper)["Phase1Out"])
    return path, wrapper, bare, json.loads(bare)


class Daemon:
    def __init__(self):
        self.sock = os.path.join(WORK, "d.sock")
        config = os.path.join(WORK, "cuzk.toml")
        with open(config, "w") as f:
            f.write('[daemon]\nlisten = "unix://%s"\n[srs]\nparam_cache = "%s"\n' % (self.sock, CACHE))
        self.log_path = os.path.join(WORK, "daemon.log")
        self.proc = subprocess.Popen(
            [os.path.join(TOOLS, "cuzk-daemon"), "-c", config, "--dev-params"],
            stderr=open(self.log_path, "w"),
        )
        self.channel = grpc.insecure_channel("unix://" + self.sock)
        self.stub = pbg.ProvingEngineStub(self.channel)
        deadline = time.time() + 20
        while not self.serving():
            if time.time() > deadline or self.proc.poll() is not None:
                raise AssertionError("daemon did not start:\n" + self.log())
            time.sleep(0.05)

    def serving(self):
        try:
            return self.stub.GetStatus(pb.GetStatusRequest(), timeout=1)
        except grpc.RpcError:
            return None

    def log(self):
        with open(self.log_path) as f:
            return f.read()

    def prove(self, vanilla, **kw):
        req = pb.SubmitProofRequest(
            request_id="porep-test-" + uuid.uuid4().hex,
            proof_kind=pb.POREP_SEAL_COMMIT,
            vanilla_proof=vanilla,
            **kw,
        )
        return self.stub.Prove(pb.ProveRequest(submit=req), timeout=PROVE_TIMEOUT).result

    def stop(self):
        self.channel.close()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=120)
        assert rc == 0, "daemon exit status %d:\n%s" % (rc, self.log()[-3000:])


def cuzk_verify(c1_path, proof_path):
    return subprocess.run(
        [os.path.join(TOOLS, "cuzk"), "verify", "porep", "--c1", c1_path, "--param-cache", CACHE,
         "--proof", proof_path],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def test_prove_and_verify(d, sector, other):
    """Issue 5: a C1 wrapper proved by the daemon verifies with cuzk verify porep."""
    path, wrapper, _, bare = sector
    n = len(bare["vanilla_proofs"][next(iter(bare["vanilla_proofs"]))])
    t0 = time.time()
    r = d.prove(wrapper, sector_size=2048, registered_proof=seal_proof_id(bare["registered_proof"]))
    assert r.status == Status.COMPLETED, r
    assert len(r.proof) == n * PROOF_BYTES, (len(r.proof), n)
    print("     proved %d partition(s) in %.1f s (srs %d ms, synthesis %d ms, prove %d ms)"
          % (n, time.time() - t0, r.srs_load_ms, r.synthesis_ms, r.gpu_compute_ms), flush=True)
    proof = os.path.join(WORK, "proof.bin")
    with open(proof, "wb") as f:
        f.write(r.proof)
    v = cuzk_verify(path, proof)
    assert v.returncode == 0, v.stdout
    v = cuzk_verify(other[0], proof)
    assert v.returncode == 1, "another sector's C1: exit %d\n%s" % (v.returncode, v.stdout)


def gen_vanilla(kind, seed, *extra):
    """cuzk-bench gen-vanilla KIND 2KiB: (list of blobs, dict of the printed values)."""
    path = os.path.join(WORK, "%s-%d.json" % (kind, seed))
    out = subprocess.run(
        [os.path.join(TOOLS, "cuzk-bench"), "gen-vanilla", kind, "--sector-size", "2KiB",
         "--seed", str(seed), "-o", path] + list(extra),
        check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    ).stdout
    values = {}
    for line in out.splitlines():
        name, value = line.split()
        values.setdefault(name, value)
    with open(path) as f:
        blobs = [base64.b64decode(b) for b in json.load(f)]
    return path, blobs, values


def prove_kind(d, kind, **kw):
    req = pb.SubmitProofRequest(request_id="vanilla-test-" + uuid.uuid4().hex, proof_kind=kind, **kw)
    r = d.stub.Prove(pb.ProveRequest(submit=req), timeout=PROVE_TIMEOUT).result
    assert r.status == Status.COMPLETED, r
    assert len(r.proof) == PROOF_BYTES, len(r.proof)
    return r.proof


def verify_kind(kind, proof, args):
    """cuzk verify --kind KIND over the proof bytes; its exit status."""
    path = os.path.join(WORK, kind + ".proof")
    with open(path, "wb") as f:
        f.write(proof)
    v = subprocess.run(
        [os.path.join(TOOLS, "cuzk"), "verify", "--kind", kind, "--sector-size", "2KiB",
         "--param-cache", CACHE, "--proof", path] + args,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    print("     " + v.stdout.strip().replace("\n", "\n     "), flush=True)
    return v.returncode


def refused_kind(d, kind, message, **kw):
    """A request the daemon's native check refuses: FAILED with message, in under a second."""
    req = pb.SubmitProofRequest(request_id="vanilla-bad-" + uuid.uuid4().hex, proof_kind=kind, **kw)
    t0 = time.time()
    r = d.stub.Prove(pb.ProveRequest(submit=req), timeout=PROVE_TIMEOUT).result
    ms = (time.time() - t0) * 1000
    assert r.status == Status.FAILED and re.search(message, r.error_message), (message, r)
    assert ms < 1000, "refused after %.0f ms" % ms
    print("     refused in %.0f ms: %s" % (ms, r.error_message), flush=True)


def flipped(blob, offset):
    """blob with byte offset (from the end when negative) xored with 1."""
    b = bytearray(blob)
    b[offset] ^= 1
    return bytes(b)


def other_randomness(hexstr):
    return "00" + hexstr[2:]


def test_winning_post(d, sector, other):
    """Winning PoSt 2KiB through Prove verifies with cuzk verify --kind winning-post."""
    path, blobs, v = gen_vanilla("winning-post", 51)
    proof = prove_kind(d, pb.WINNING_POST, vanilla_proofs=blobs,
                       randomness=bytes.fromhex(v["randomness"]),
                       registered_proof=int(v["registered_proof"]), sector_size=2048)
    args = ["--vanilla", path, "--randomness"]
    assert verify_kind("winning-post", proof, args + [v["randomness"]]) == 0
    assert verify_kind("winning-post", proof, args + [other_randomness(v["randomness"])]) == 1
    # 2KiB blob: the first proof's level 0 siblings start at byte 140.
    refused_kind(d, pb.WINNING_POST,
                 r"PoSt sector 0 \(id 1\), challenge 0 \(leaf \d+\): the tree-R path does not "
                 r"hash to comm_r_last",
                 vanilla_proofs=[flipped(blobs[0], 140)], randomness=bytes.fromhex(v["randomness"]),
                 registered_proof=int(v["registered_proof"]), sector_size=2048)


def test_window_post(d, sector, other):
    """Window PoSt 2KiB, three sectors as two partition requests, verified together."""
    path, blobs, v = gen_vanilla("window-post", 52, "--sectors", "3")
    proof = b""
    for k, part in enumerate((blobs[:2], blobs[2:])):
        proof += prove_kind(d, pb.WINDOW_POST_PARTITION, vanilla_proofs=part, partition_index=k,
                            randomness=bytes.fromhex(v["randomness"]),
                            registered_proof=int(v["registered_proof"]))
    args = ["--vanilla", path, "--randomness", v["randomness"]]
    assert verify_kind("window-post", proof, args) == 0
    assert verify_kind("window-post", proof, args + ["--registered-proof", "V1"]) == 1
    # Partition 1's one sector (id 3) with comm_c (64 bytes before the end) altered.
    refused_kind(d, pb.WINDOW_POST_PARTITION,
                 r"PoSt sector 0 \(id 3\): comm_r is not Poseidon\(comm_c, comm_r_last\)",
                 vanilla_proofs=[flipped(blobs[2], -64)], partition_index=1,
                 randomness=bytes.fromhex(v["randomness"]),
                 registered_proof=int(v["registered_proof"]))


def test_snap_update(d, sector, other):
    """SnapDeals 2KiB through Prove verifies with cuzk verify --kind update; an altered partition
    proof is refused by the native check, fault named."""
    _, blobs, v = gen_vanilla("snap-prove", 53)
    comms = {k: bytes.fromhex(v[k]) for k in ("comm_r_old", "comm_r_new", "comm_d_new")}
    proof = prove_kind(d, pb.SNAP_DEALS_UPDATE, vanilla_proofs=blobs,
                       registered_proof=int(v["registered_proof"]), sector_size=2048, **comms)
    args = []
    for k in ("comm_r_old", "comm_r_new", "comm_d_new"):
        args += ["--" + k.replace("_", "-"), v[k]]
    assert verify_kind("update", proof, args) == 0
    swapped = args[:3] + [v["comm_r_old"]] + args[4:]  # comm_r_new := comm_r_old
    assert verify_kind("update", proof, swapped) == 1
    # An apex leaf altered (a blob opens with comm_c, then the apex leaf count and the leaves):
    # the native check refuses it before synthesis, in milliseconds, naming the fault.
    altered = bytearray(blobs[0])
    altered[40] ^= 1
    req = pb.SubmitProofRequest(request_id="snap-altered-" + uuid.uuid4().hex,
                                proof_kind=pb.SNAP_DEALS_UPDATE, vanilla_proofs=[bytes(altered)],
                                registered_proof=int(v["registered_proof"]), sector_size=2048,
                                **comms)
    t0 = time.time()
    r = d.stub.Prove(pb.ProveRequest(submit=req), timeout=PROVE_TIMEOUT).result
    took = time.time() - t0
    want = "update partition 0: the apex leaves do not hash to comm_d_new"
    assert r.status == Status.FAILED and want in r.error_message, r
    assert took < 2, "an altered SnapDeals proof took %.2f s to refuse" % took


def altered_sibling(bare):
    """The bare C1 with one tree-R path sibling of challenge 1 changed, and the expected message."""
    c1 = json.loads(json.dumps(bare))
    p = next(iter(c1["vanilla_proofs"].values()))[0][1]
    hashes = p["comm_r_last_proof"]["data"]["Single"]["path"]["path"][0]["hashes"]
    assert hashes[0] != hashes[1]
    hashes[1] = hashes[0]
    node = p["replica_column_proofs"]["c_x"]["column"]["index"]
    return (json.dumps(c1).encode(),
            "C1 partition 0, challenge 1 (node %d): the tree-R path does not hash to comm_r_last"
            % node)


def test_mismatch_and_garbage(d, sector, other):
    """Wrong sector size / proof type / not a C1 / an altered C1: FAILED with a message, the
    daemon serves on."""
    _, wrapper, bare_bytes, bare = sector
    pid = seal_proof_id(bare["registered_proof"])
    altered, altered_message = altered_sibling(bare)
    cases = [
        (altered, dict(sector_size=2048, registered_proof=pid), altered_message),
        # The bare JSON is parsed before the request is compared with it.
        (bare_bytes, dict(sector_size=32 << 30), "request sector_size 34359738368"),
        (bare_bytes, dict(registered_proof=pid + 3), "StackedDrg32GiB"),
        (wrapper, dict(sector_size=8 << 20, registered_proof=pid), "2KiB sector"),
        (wrapper[: len(wrapper) // 2], {}, "porep proof request rejected"),
        (b"\x00garbage", {}, "porep proof request rejected"),
        (bare_bytes.replace(b'"comm_r"', b'"comm_x"', 1), {}, "porep proof request rejected"),
    ]
    failed0 = d.serving().total_proofs_failed
    for vanilla, kw, message in cases:
        r = d.prove(vanilla, **kw)
        assert r.status == Status.FAILED and message in r.error_message, (message, r.error_message)
    status = d.serving()
    assert status is not None and d.proc.poll() is None, "daemon stopped serving"
    assert status.total_proofs_failed == failed0 + len(cases), status


def main():
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(CACHE, exist_ok=True)
    sector, other = seal(31, "c1.json"), seal(32, "other.json")
    d = Daemon()
    ok = True
    try:
        for fn in (test_mismatch_and_garbage, test_prove_and_verify, test_winning_post,
                   test_window_post, test_snap_update):
            t0 = time.time()
            try:
                fn(d, sector, other)
                print("ok   %-28s %6.1f s" % (fn.__name__, time.time() - t0), flush=True)
            except Exception:
                ok = False
                print("FAIL %-28s %6.1f s" % (fn.__name__, time.time() - t0), flush=True)
                traceback.print_exc()
    finally:
        d.stop()
    if not ok:
        print("daemon log:", d.log_path)
    print("daemon_porep: %s" % ("passed" if ok else "FAILED"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
