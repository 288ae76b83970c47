"""soak_daemon.py - the soak's cuzk-daemon: started as systemd starts it, killed, drained.

The command is the ExecStart line of dist/cuzk-daemon.service.in with the
build's cuzk-daemon and the soak's configuration substituted, plus the
soak's flags (--test-circuits, --dev-params). Every start is an epoch:
a call that fails with a transport error is resent only when its epoch
ended (the daemon was killed or drained) while it ran. An exit the soak did
not cause, or any exit status but 0 after SIGTERM, is recorded as a crash.
"""

import glob
import os
import shlex
import signal
import subprocess
import threading
import time

import grpc


def unit_command(unit_file, daemon, config):
    """The unit's ExecStart with the build's paths, as a list."""
    with open(unit_file) as f:
        for line in f:
            if line.startswith("ExecStart="):
                cmd = line[len("ExecStart="):].strip()
                break
        else:
            raise ValueError("%s: no ExecStart line" % unit_file)
    cmd = cmd.replace("@CUZK_BINDIR@/cuzk-daemon", daemon).replace("@CUZK_CONFIG@", config)
    if "@" in cmd:
        raise ValueError("%s: ExecStart has an unknown variable: %s" % (unit_file, cmd))
    return shlex.split(cmd)


def write_config(path, tables):
    with open(path, "w") as f:
        for table, keys in tables.items():
            f.write("[%s]\n" % table)
            for k, v in keys.items():
                if isinstance(v, bool):
                    v = "true" if v else "false"
                elif isinstance(v, int):
                    v = str(v)
                else:
                    v = '"%s"' % v
                f.write("%s = %s\n" % (k, v))


class ChannelClosed(grpc.RpcError):
    """A call on a channel that a kill or drain closed: grpc raises ValueError for it, the
    soak's callers see what a call in flight then gets (CANCELLED, a transport error)."""

    def code(self):
        return grpc.StatusCode.CANCELLED

    def details(self):
        return "the channel was closed by a restart"


def _closed(e):
    text = str(e).lower()  # "... on closed channel!", "... Channel closed!"
    return "closed channel" in text or "channel closed" in text


def _guarded(call, *args, **kwargs):
    try:
        return call(*args, **kwargs)
    except ValueError as e:
        if not _closed(e):
            raise
        raise ChannelClosed() from e


class Method:
    """A stub method (or a channel's unary_unary) called, or started with future()."""

    def __init__(self, method):
        self.method = method

    def __call__(self, *args, **kwargs):
        return _guarded(self.method, *args, **kwargs)

    def future(self, *args, **kwargs):
        return _guarded(self.method.future, *args, **kwargs)


class Stub:
    """The daemon's stub, each method raising ChannelClosed where grpc raises ValueError."""

    def __init__(self, stub):
        self.stub = stub

    def __getattr__(self, name):
        return Method(getattr(self.stub, name))


class Daemon:
    def __init__(self, pb, pbg, command, sock, log_path, options):
        self.pb, self.pbg = pb, pbg
        self.command, self.sock, self.log_path = command, sock, log_path
        self.options = options
        self.lock = threading.Lock()
        self.proc = None
        self.epoch = 0
        self.up = False  # serving, not being killed or drained
        self.crashes = []
        self.expected_exit = False

    def start(self, timeout=120):
        with self.lock:
            if os.path.exists(self.sock):
                os.unlink(self.sock)
            log = open(self.log_path, "a")
            log.write("==== soak: start epoch %d: %s\n" % (self.epoch + 1, " ".join(self.command)))
            log.flush()
            self.proc = subprocess.Popen(self.command, stderr=log, stdout=log,
                                         cwd=os.path.dirname(self.log_path))
            self.expected_exit = False
            self.epoch += 1
        self.channel = grpc.insecure_channel("unix://" + self.sock, options=self.options)
        self.stub = Stub(self.pbg.ProvingEngineStub(self.channel))
        deadline = time.time() + timeout
        while True:
            try:
                self.stub.GetStatus(self.pb.GetStatusRequest(), timeout=1)
                break
            except grpc.RpcError:
                if self.proc.poll() is not None:
                    raise RuntimeError("daemon exited %d at start; log %s"
                                       % (self.proc.returncode, self.log_path))
                if time.time() > deadline:
                    raise RuntimeError("daemon not serving after %d s" % timeout)
                time.sleep(0.05)
        self.up = True

    def kill(self):
        """SIGKILL, as a crash or an OOM kill would; the caller restarts."""
        with self.lock:
            self.up = False
            self.expected_exit = True
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.channel.close()

    def drain(self, timeout=180):
        """SIGTERM: the daemon finishes or fails its jobs and must exit 0."""
        with self.lock:
            self.up = False
            self.expected_exit = True
            self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = "hung %d s after SIGTERM" % timeout
        self.channel.close()
        if rc != 0:
            self.crashes.append("exit %s after SIGTERM (epoch %d)" % (rc, self.epoch))
        return rc

    def check_alive(self):
        """An exit nobody asked for: recorded as a crash, and the daemon restarted."""
        with self.lock:
            if self.expected_exit or self.proc.poll() is None:
                return False
            self.crashes.append("epoch %d died: exit %d" % (self.epoch, self.proc.returncode))
            self.up = False
        return True

    def resources(self):
        """(RSS bytes, open files, threads, bytes reserved in its memory budget) of the
        running daemon; the last from GetMetrics' cuzk_memory_used_bytes (parameters,
        partition storage kept for reuse, work in progress; 0 when it does not answer)."""
        pid = self.proc.pid
        rss = threads = 0
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) * 1024
                elif line.startswith("Threads:"):
                    threads = int(line.split()[1])
        files = len(os.listdir("/proc/%d/fd" % pid))
        used = 0
        try:
            text = self.stub.GetMetrics(self.pb.GetMetricsRequest(), timeout=5).prometheus_text
            for line in text.splitlines():
                if line.startswith("cuzk_memory_used_bytes "):
                    used = int(float(line.split()[1]))
        except grpc.RpcError:
            pass
        return rss, files, threads, used

    def core_dumps(self):
        d = os.path.dirname(self.log_path)
        return glob.glob(os.path.join(d, "core*"))
