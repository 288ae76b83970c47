"""config_examples.py - the configuration examples the docs give, run.

Every `table.key = value` written inline in README.md and docs/*.md, and
every "e.g. VALUE" in a comment of `cuzk-daemon --print-default-config`,
is put into a configuration as written (beside a unix socket and an
empty srs.param_cache) and cuzk-daemon is started with it: it must come
up and answer `cuzk-bench status`, resolve each circuit id of an
srs.preload example to its official parameter file (the log names the
missing file), and stop cleanly on SIGTERM. A listen address keeps its
host and gets a free port (a fixed port may be taken on a shared
machine). The printed default configuration itself starts too.

The circuit id table of docs/curio.md must equal the grid of
`cuzk-daemon --list-circuits`, every id in it must resolve in a daemon
(two preloading ten each), and an unknown id (the old example's
'window-32g') must stop the daemon with a message listing the valid ids.

usage: config_examples.py BUILD_DIR SOURCE_DIR
"""

import glob
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

BUILD, SRC = sys.argv[1], sys.argv[2]
DAEMON = os.path.join(BUILD, "tools", "cuzk-daemon")
BENCH = os.path.join(BUILD, "tools", "cuzk-bench")
ROOT = tempfile.mkdtemp(prefix="cuzk-config-examples.")
PARAMS = os.path.join(ROOT, "params")
os.makedirs(PARAMS)
failures = []


def fail(where, why):
    failures.append("%s: %s" % (where, why))
    print("FAILED %s: %s" % (where, why), flush=True)


def doc_examples():
    """(where, table, key, value) of every inline `table.key = value`."""
    out = []
    paths = [os.path.join(SRC, "README.md")] + sorted(glob.glob(os.path.join(SRC, "docs", "*.md")))
    for path in paths:
        text = open(path).read()
        for m in re.finditer(r"`([a-z_]+)\.([a-z_]+) = ([^`]+)`", text):
            line = text.count("\n", 0, m.start()) + 1
            value = " ".join(m.group(3).split())  # an example wrapped over lines
            where = "%s:%d" % (os.path.relpath(path, SRC), line)
            out.append((where, m.group(1), m.group(2), value))
    return out


def default_config():
    return subprocess.run([DAEMON, "--print-default-config"], check=True,
                          capture_output=True, text=True).stdout


def comment_examples(text):
    """(where, table, key, value) of every "e.g. VALUE" in a key's comment."""
    out, table = [], None
    for line in text.splitlines():
        h = re.match(r"\[([a-z_]+)\]$", line)
        if h:
            table = h.group(1)
            continue
        m = re.match(r"([a-z_]+) = .*?  # (.*)$", line)
        if not m:
            continue
        for e in re.finditer(r"e\.g\. (\[[^\]]*\]|\"[^\"]*\"|\S+)", m.group(2)):
            out.append(("default config comment of %s.%s" % (table, m.group(1)),
                        table, m.group(1), e.group(1)))
    return out


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def with_free_port(value):
    """A quoted host:port value with a free port, and the address to reach it."""
    host = value.strip('"').rsplit(":", 1)[0]
    port = free_port()
    reach = "127.0.0.1" if host in ("0.0.0.0", "") else host
    return '"%s:%d"' % (host, port), "%s:%d" % (reach, port)


class Run:
    """A cuzk-daemon on a configuration: base keys, then the example's."""

    n = 0

    def __init__(self, where, keys, whole=None):
        Run.n += 1
        self.where = where
        self.dir = os.path.join(ROOT, "run%d" % Run.n)
        os.makedirs(self.dir)
        self.addr = "unix://" + os.path.join(self.dir, "d.sock")
        self.http = None
        cfg = {"daemon": {"listen": '"%s"' % self.addr}, "srs": {"param_cache": '"%s"' % PARAMS}}
        for (table, key), value in keys.items():
            if (table, key) == ("daemon", "listen"):
                value, self.addr = with_free_port(value)
            elif (table, key) == ("daemon", "status_listen"):
                value, self.http = with_free_port(value)
            cfg.setdefault(table, {})[key] = value
        self.config = os.path.join(self.dir, "cuzk.toml")
        with open(self.config, "w") as f:
            if whole is not None:  # a whole file as printed, the base keys replaced
                base = {"listen": cfg["daemon"]["listen"], "param_cache": cfg["srs"]["param_cache"]}
                f.write(re.sub(r"(?m)^(listen|param_cache) = .*$",
                               lambda m: "%s = %s" % (m.group(1), base[m.group(1)]), whole))
            else:
                for table, kv in cfg.items():
                    f.write("[%s]\n" % table)
                    for key, value in kv.items():
                        f.write("%s = %s\n" % (key, value))
        self.log = os.path.join(self.dir, "daemon.log")
        self.proc = subprocess.Popen([DAEMON, "-c", self.config], stdout=subprocess.DEVNULL,
                                     stderr=open(self.log, "w"))

    def log_text(self):
        return open(self.log).read()

    def answers(self):
        for _ in range(300):  # up to 30 s (a loaded machine)
            if self.proc.poll() is not None:
                return False
            r = subprocess.run([BENCH, "-a", self.addr, "status"], capture_output=True)
            if r.returncode == 0:
                return True
            time.sleep(0.1)
        return False

    def wait_log(self, pattern, seconds=30):
        for _ in range(seconds * 10):
            if re.search(pattern, self.log_text()):
                return True
            time.sleep(0.1)
        return False

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return None


def param_files():
    """circuit id -> official parameter name, from --list-circuits."""
    out = subprocess.run([DAEMON, "--list-circuits"], check=True, capture_output=True,
                         text=True).stdout
    names = dict(re.findall(r"(?m)^([a-z]+-[0-9]+[kmg])\s+(v28-\S+)$", out))
    grid = re.findall(r"(?m)^([A-Z_]+)((?:\s+[a-z]+-[0-9]+[kmg])+)\s*$", out)
    header = re.search(r"(?m)^proof kind((?:\s+[0-9]+[KMG]iB)+)\s*$", out)
    return names, header.group(1).split(), {k: ids.split() for k, ids in grid}


def check_preload(run, value, names):
    for cid in re.findall(r'"([^"]+)"', value):
        if cid not in names:
            fail(run.where, "srs.preload id %s is not in --list-circuits" % cid)
        elif not run.wait_log(r"preload %s: .*%s\.params not found" % (re.escape(cid), names[cid])):
            fail(run.where, "srs.preload %s: the log names no attempt at %s.params:\n%s"
                 % (cid, names[cid], run.log_text()[-1500:]))


def run_example(where, keys, names, whole=None):
    r = Run(where, keys, whole)
    try:
        if not r.answers():
            fail(where, "cuzk-daemon did not come up on %s:\n%s" % (keys or "the default config",
                                                                   r.log_text()[-1500:]))
            return
        if r.http:
            body = urllib.request.urlopen("http://%s/status" % r.http, timeout=10).read()
            if b"uptime_seconds" not in body:
                fail(where, "GET /status answered %r" % body[:200])
        for (table, key), value in keys.items():
            if (table, key) == ("srs", "preload"):
                check_preload(r, value, names)
    finally:
        rc = r.stop()
    if rc != 0:
        fail(where, "cuzk-daemon exited %s on SIGTERM:\n%s" % (rc, r.log_text()[-1500:]))
    print("ok %s: %s" % (where, " ".join("%s.%s = %s" % (t, k, v) for (t, k), v in keys.items())
                          or "as printed"), flush=True)


def check_table(names, sizes, grid):
    """docs/curio.md's id table equals --list-circuits' grid."""
    text = open(os.path.join(SRC, "docs", "curio.md")).read()
    head = re.search(r"(?m)^\| proof kind((?: \| [0-9]+[KMG]iB)+) \|$", text)
    cid = r"`[a-z]+-[0-9]+[kmg]`"
    found = re.findall(r"(?m)^\| `([A-Z_]+)` \| (%s(?: \| %s)*) \|$" % (cid, cid), text)
    rows = {k: [i.strip("`") for i in ids.split(" | ")] for k, ids in found}
    if not head or head.group(1).split(" | ")[1:] != sizes:
        fail("docs/curio.md", "the id table's sizes %s differ from --list-circuits' %s"
             % (head and head.group(1), sizes))
    if rows != grid:
        fail("docs/curio.md", "the id table %s differs from --list-circuits' %s" % (rows, grid))
    ids = sorted(i for v in grid.values() for i in v)
    if len(ids) != 20 or sorted(names) != ids:
        fail("--list-circuits", "ids %s, parameter files for %s" % (ids, sorted(names)))
    return ids


def main():
    names, sizes, grid = param_files()
    ids = check_table(names, sizes, grid)
    examples = doc_examples()
    default = default_config()
    examples += comment_examples(default)
    if not any((t, k) == ("srs", "preload") for _, t, k, _ in examples):
        fail("examples", "no srs.preload example found")
    for where, table, key, value in examples:
        run_example(where, {(table, key): value}, names)
    run_example("the default configuration", {}, names, whole=default)
    for half in (ids[:10], ids[10:]):  # srs.preload takes up to 16
        run_example("the circuit ids of docs/curio.md", {("srs", "preload"): "[%s]" % ", ".join(
            '"%s"' % i for i in half)}, names)
    bad = Run("an unknown id", {("srs", "preload"): '["window-32g"]'})
    try:
        rc = bad.proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        rc = None
    bad.stop()
    log = bad.log_text()
    want = "no circuit 'window-32g' in this daemon (circuit ids: porep-2k,"
    if rc != 1 or want not in log or "wpost-32g" not in log:
        fail("an unknown id", "exit %s, log:\n%s" % (rc, log[-1500:]))
    print("ok an unknown id: %s" % log.strip().splitlines()[-1], flush=True)
    subprocess.run(["rm", "-rf", ROOT])
    print("config_examples: %d examples, %d failed" % (len(examples) + 4, len(failures)))
    sys.exit(1 if failures else 0)


main()
