"""soak_inputs.py - the soak's request templates and how each proof is verified.

A template is one real request of one kind (PoRep C1 from cuzk-seal, Winning
PoSt, the partition request of a one-sector Window PoSt, SnapDeals, from
`cuzk-bench gen-vanilla`; above 2KiB, unless sealing is asked for, the
sparse test data of `gen-vanilla --sparse` for all four; a synthetic
test-circuit record) with the `cuzk verify` command line that accepts its
proof. Test-circuit proofs have
no verifier outside the daemon (their public input comes from a witness
synthesis): they are checked by length and uniqueness, and by the daemon's
own verification, which fails the job when a proof does not verify.
"""

import base64
import json
import os
import shlex
import struct
import subprocess

PROOF_BYTES = 192
SIZES = {"2KiB": 2048, "8MiB": 8 << 20, "512MiB": 512 << 20, "32GiB": 32 << 30}
GROUPS = ["V1", "V1_1", "V1_1_Feat_SyntheticPoRep", "V1_2_Feat_NonInteractivePoRep"]
SIZE_ORDER = ["2KiB", "8MiB", "512MiB", "32GiB", "64GiB"]
NO_BAD = 0xFFFFFFFF


class Template:
    """One request's fields (keyword arguments of SubmitProofRequest) and its verifier."""

    def __init__(self, name, kind, fields, verify=None, partitions=1, alter=None):
        self.name, self.kind, self.fields = name, kind, fields
        self.verify = verify  # argv of `cuzk verify` without --proof, or None (test circuits)
        self.partitions = partitions
        self.alter = alter  # fields with the vanilla data altered (must fail), or None

    def verify_command(self, proof_path):
        if self.verify is None:
            return None
        return self.verify + ["--proof", os.path.abspath(proof_path)]


def seal_proof_id(name):
    for g, group in enumerate(GROUPS):
        for s, size in enumerate(SIZE_ORDER):
            if name == "StackedDrg%s%s" % (size, group):
                return 5 * g + s
    raise ValueError("unknown registered proof " + name)


def test_record(constraints, partitions=1, seed=1, bad=NO_BAD):
    """The synthetic test family's vanilla proof (engine_provider.h)."""
    return b"CUZKTEST" + struct.pack("<IIQII", constraints, partitions, seed, bad, 0)


def _run(argv):
    return subprocess.run(argv, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True).stdout


def _gen_vanilla(tools, work, kind, size, seed, *extra):
    """gen-vanilla's blobs and printed values; kept in work and reused by a later run."""
    path = os.path.join(work, "%s-%s%s-%d.json" % (kind, "sparse-" if "--sparse" in extra
                                                   else "", size, seed))
    if not os.path.exists(path + ".txt"):
        out = _run([os.path.join(tools, "cuzk-bench"), "gen-vanilla", kind, "--sector-size", size,
                    "--seed", str(seed), "-o", path] + list(extra))
        with open(path + ".txt", "w") as f:
            f.write(out)
    with open(path + ".txt") as f:
        out = f.read()
    values = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2:
            values.setdefault(parts[0], parts[1])
    with open(path) as f:
        blobs = [base64.b64decode(b) for b in json.load(f)]
    return path, blobs, values


def _altered_blobs(blobs):
    """The blobs with one byte in the middle of the first flipped."""
    b = bytearray(blobs[0])
    b[len(b) // 2] ^= 0x5A
    return [bytes(b)] + blobs[1:]


def _altered_c1(wrapper):
    """A C1 wrapper with one tree-R path sibling of challenge 1 replaced by its neighbour."""
    outer = json.loads(wrapper)
    bare = json.loads(base64.b64decode(outer["Phase1Out"]))
    p = next(iter(bare["vanilla_proofs"].values()))[0][1]
    hashes = p["comm_r_last_proof"]["data"]["Single"]["path"]["path"][0]["hashes"]
    hashes[1] = hashes[0] if hashes[0] != hashes[1] else [x ^ 1 for x in hashes[1]]
    outer["Phase1Out"] = base64.b64encode(json.dumps(bare).encode()).decode()
    return json.dumps(outer).encode()


def porep(pb, tools, work, cache, size, seed, sparse=False):
    """A sealed sector's C1 (kept in work, its sector in PATH.sector, reused by a later run);
    sparse: a committed-capacity sector's C1 from `cuzk-bench gen-vanilla porep --sparse`
    (seconds at any size; it proves and verifies as a sealed sector's, no sector behind it)."""
    path = os.path.join(work, "c1-%s%s-%d.json" % ("sparse-" if sparse else "", size, seed))
    if not os.path.exists(path):
        if sparse:
            _run([os.path.join(tools, "cuzk-bench"), "gen-vanilla", "porep", "--sparse",
                  "--sector-size", size, "--seed", str(seed), "-o", path + ".tmp"])
        else:
            _run([os.path.join(tools, "cuzk-seal"), "seal", "--sector-size", size, "--seed",
                  str(seed), "--c1", path + ".tmp", "-o", path + ".sector"])
        os.replace(path + ".tmp", path)
    with open(path, "rb") as f:
        wrapper = f.read()
    bare = json.loads(base64.b64decode(json.loads(wrapper)["Phase1Out"]))
    n = len(bare["vanilla_proofs"][next(iter(bare["vanilla_proofs"]))])
    fields = dict(proof_kind=pb.POREP_SEAL_COMMIT, vanilla_proof=wrapper, sector_size=SIZES[size],
                  registered_proof=seal_proof_id(bare["registered_proof"]))
    verify = [os.path.join(tools, "cuzk"), "verify", "porep", "--c1", path, "--param-cache", cache]
    alter = dict(fields, vanilla_proof=_altered_c1(wrapper))
    return Template("porep-%d" % seed, "porep", fields, verify, n, alter)


def _verify_kind(tools, cache, kind, size):
    return [os.path.join(tools, "cuzk"), "verify", "--kind", kind, "--sector-size", size,
            "--param-cache", cache]


def winning(pb, tools, work, cache, size, seed, *sealed):
    path, blobs, v = _gen_vanilla(tools, work, "winning-post", size, seed, *sealed)
    rnd = bytes.fromhex(v["randomness"])
    fields = dict(proof_kind=pb.WINNING_POST, vanilla_proofs=blobs, randomness=rnd,
                  registered_proof=int(v["registered_proof"]), sector_size=SIZES[size])
    verify = _verify_kind(tools, cache, "winning-post", size) + [
        "--vanilla", path, "--randomness", v["randomness"]]
    return Template("winning-%d" % seed, "winning", fields, verify, 1,
                    dict(fields, vanilla_proofs=_altered_blobs(blobs)))


def window(pb, tools, work, cache, size, seed, *sealed):
    """A window PoSt of one sector: one partition request, verified on its own."""
    path, blobs, v = _gen_vanilla(tools, work, "window-post", size, seed, "--sectors", "1",
                                  *sealed)
    fields = dict(proof_kind=pb.WINDOW_POST_PARTITION, vanilla_proofs=blobs, partition_index=0,
                  randomness=bytes.fromhex(v["randomness"]),
                  registered_proof=int(v["registered_proof"]))
    verify = _verify_kind(tools, cache, "window-post", size) + [
        "--vanilla", path, "--randomness", v["randomness"]]
    return Template("window-%d" % seed, "window", fields, verify, 1,
                    dict(fields, vanilla_proofs=_altered_blobs(blobs)))


def snap(pb, tools, work, cache, size, seed, *sealed):
    _, blobs, v = _gen_vanilla(tools, work, "snap-prove", size, seed, *sealed)
    names = ("comm_r_old", "comm_r_new", "comm_d_new")
    fields = dict(proof_kind=pb.SNAP_DEALS_UPDATE, vanilla_proofs=blobs,
                  registered_proof=int(v["registered_proof"]), sector_size=SIZES[size],
                  **{k: bytes.fromhex(v[k]) for k in names})
    verify = _verify_kind(tools, cache, "update", size)
    for k in names:
        verify += ["--" + k.replace("_", "-"), v[k]]
    # one vanilla proof per partition: 1 at 2KiB, 16 at 512MiB and above
    return Template("snap-%d" % seed, "snap", fields, verify, len(blobs),
                    dict(fields, vanilla_proofs=_altered_blobs(blobs)))


def test_circuit(pb, constraints, partitions, seed):
    kinds = [pb.POREP_SEAL_COMMIT, pb.WINNING_POST, pb.SNAP_DEALS_UPDATE, pb.WINDOW_POST_PARTITION]
    fields = dict(proof_kind=kinds[seed % 4],
                  vanilla_proof=test_record(constraints, partitions, seed))
    return Template("test-%d-%dx%d" % (constraints, seed, partitions), "test", fields, None,
                    partitions)


def make_all(pb, tools, work, cache, size, seed, kinds, seal=False):
    """The templates of one run, with three test circuits: at 2KiB two sectors of each
    Filecoin kind asked for, each sealed on its own. Above 2KiB one sector of each kind:
    sparse test data from `cuzk-bench gen-vanilla --sparse` (seconds at any size), or with
    seal one sector sealed by cuzk-seal (minutes at 512MiB on 16 cores) whose C1 is the
    PoRep and whose replica the PoSt and SnapDeals vanilla proofs open (gen-vanilla
    --sealed)."""
    os.makedirs(work, exist_ok=True)
    out = []
    makers = {"porep": porep, "winning": winning, "window": window, "snap": snap}
    if size != "2KiB" and seal:
        first = porep(pb, tools, work, cache, size, seed * 100 + 1)
        sealed = ("--sealed", first.verify[first.verify.index("--c1") + 1] + ".sector")
        out += [first] if "porep" in kinds else []
        out += [makers[k](pb, tools, work, cache, size, seed * 100 + 1, *sealed)
                for k in ("winning", "window", "snap") if k in kinds]
    elif size != "2KiB":
        out += [porep(pb, tools, work, cache, size, seed * 100 + 1, sparse=True)
                ] if "porep" in kinds else []
        out += [makers[k](pb, tools, work, cache, size, seed * 100 + 1, "--sparse")
                for k in ("winning", "window", "snap") if k in kinds]
    for k, name in enumerate(("porep", "winning", "window", "snap")):
        if name not in kinds or size != "2KiB":
            continue
        for j in range(2):
            out.append(makers[name](pb, tools, work, cache, size, seed * 100 + 10 * k + j + 1))
    for j, (c, p) in enumerate(((2048, 1), (2048, 3), (4096, 2))):
        out.append(test_circuit(pb, c, p, seed + j))
    return out


def command_line(argv):
    return " ".join(shlex.quote(a) for a in argv)
