#!/usr/bin/env python3
"""adversarial.py - hostile inputs against `cachet run`, class by class.

Usage: CACHET_CORPUS=DIR tests/adversarial.py PATH-TO-cachet [--cases N] [--seed S]
                                               [--classes a,b,...] [--jobs J] [--keep DIR]

Every case runs `cachet run -q --json OUT INPUT` (the format forced with -f,
every other case --lenient; VIXL cases run `cachet info --json`, since
every public VIXL trace masks its addresses and cannot be simulated) under
a 10 s timeout and a 2 GiB address-space limit. A case fails on a crash (a
signal), a hang (the timeout), an exit status other than 0 or 2, an exit 2
whose message does not name the input and a position (line, byte, record,
offset, member, or "the first bytes" of format detection) - or, for an
error about the input as a whole (cannot open, a directory of no traces,
masked addresses, not a zip archive), its reason - an exit 0 without its
JSON, or an exit 2 that leaves an output behind. The classes:

  flip        N seeded byte flips (1-16 bytes each) per format, of real traces
  truncate    N seeded truncations per format, of the same traces
  bomb        gzip and zip bombs (1 GiB of zeros), plain and as drmemtrace
  zipnames    zip members with odd names (.., absolute, newline, empty, 60 KB)
  emptydir    a directory of 5000 empty files (and one of 5000 empty .zip)
  symlink     a symlink loop, as the input and inside a trace directory
  fifo        a FIFO fed a real trace, one fed nothing and closed
  urandom     /dev/urandom, every format forced, and detected

The real traces come from CACHET_CORPUS; formats the corpus has no trace of
(tt6, tt6e, ctr) get one converted from a real one by `cachet convert`. The
report gives, per class, the cases run and the failures, each with the
seed and case number that repeat it. Exit status 0 when nothing failed, 1
otherwise, 77 when CACHET_CORPUS is unset.
"""
import argparse
import os
import random
import re
import resource
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
import zipfile
import zlib

TIMEOUT = 10
ADDRESS_SPACE = 2 << 30
POSITION = re.compile(r"(:\d+|byte \d+|line \d+|record \d+|offset \d+|first bytes|"
                      r"entry \d+|member|empty file|no trace file)")
# errors about the input as a whole, where no position applies
WHOLE = re.compile(r"cannot open|is a directory|directory holds no|masks its memory addresses|"
                   r"not a readable zip archive|unknown trace format")

# format -> (corpus path, or None: converted from another format)
SEEDS = [
    ("din", "din/093.nasa7.din.Z", "din"),
    ("drmemtrace-raw", "drmemtrace/dynamorio-tests/drmemtrace.small.x64.trace", "drmemtrace"),
    ("drmemtrace-gz", "drmemtrace/dynamorio-tests/offline-func-trace/trace/"
                      "drmemtrace.tool.fib_plus.125256.0417.trace.gz", "drmemtrace"),
    ("drmemtrace-zip", "drmemtrace/dynamorio-tests/drmemtrace.threadsig.x64.tracedir/"
                       "drmemtrace.threadsig.872906.1041.trace.zip", "drmemtrace"),
    ("tarmac", "tarmac/tarmac-trace-utilities/tests/calltests/calltest64.tarmac", "tarmac"),
    ("tracematcher", "tarmac/tarmac-trace-utilities/tests/parsertest.txt", "tarmac"),
    ("vixl", "vixl/test-trace-reference-v1.13/log-write", "vixl"),
    ("tt6", None, "tt6"),
    ("tt6e", None, "tt6e"),
    ("ctr", None, "ctr"),
]


# A sanitizer build reserves terabytes of shadow address space at start, so
# it cannot run under the address-space limit; .ci/test sets these variables
# for its sanitizer builds, and there the limit is left to the sanitizer.
SANITIZED = bool(os.environ.get("ASAN_OPTIONS") or os.environ.get("TSAN_OPTIONS"))


def limits():
    if not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class Runner:
    def __init__(self, cachet, work):
        self.cachet = cachet
        self.work = work
        self.results = {}   # class -> [cases, failures list]
        self.lock = threading.Lock()

    def case(self, cls, label, path, args=(), stdin=None, name=None, info=False):
        """Run one case; record a failure with its reason."""
        with self.lock:
            entry = self.results.setdefault(cls, [0, []])
            entry[0] += 1
        outdir = tempfile.mkdtemp(dir=self.work, prefix="out.")
        out = os.path.join(outdir, "r.json")
        cmd = [self.cachet, "run", "-q"] + list(args) + ["--json", out, path]
        if info:
            cmd = [self.cachet, "info", "--json"] + list(args) + [path]
        try:
            p = subprocess.run(cmd, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                               stdout=subprocess.PIPE if info else subprocess.DEVNULL,
                               stderr=subprocess.PIPE,
                               timeout=TIMEOUT, preexec_fn=limits)
        except subprocess.TimeoutExpired:
            with self.lock:
                entry[1].append("%s: hang (over %d s)" % (label, TIMEOUT))
            return
        err = p.stderr.decode("utf-8", "replace")
        rc = p.returncode
        why = None
        if rc < 0 or rc > 128:
            why = "crash (signal %d)" % (-rc if rc < 0 else rc - 128)
        elif rc not in (0, 2):
            why = "exit status %d" % rc
        elif rc == 0 and not info and not os.path.exists(out):
            why = "exit 0 without the JSON"
        elif rc == 0 and info and not p.stdout.strip().startswith(b"{"):
            why = "exit 0 without the JSON"
        elif rc == 2:
            who = name or os.path.basename(path)
            if who not in err:
                why = "message does not name %s" % who
            elif not POSITION.search(err) and not WHOLE.search(err):
                why = "message without a position"
            elif os.listdir(outdir):
                why = "output left behind: %s" % os.listdir(outdir)
        if why:
            with self.lock:
                entry[1].append("%s: %s: %s" % (label, why, err.strip()[:200]))
        shutil.rmtree(outdir, ignore_errors=True)


def seed_traces(cachet, corpus, work):
    """format label -> (bytes, -f name)"""
    seeds = {}
    for label, rel, fmt in SEEDS:
        if rel is None:
            continue
        with open(os.path.join(corpus, rel), "rb") as f:
            seeds[label] = (f.read(), fmt)
    # a real din, decompressed and cut to 64 KiB of whole lines (the .Z
    # itself is a case of its own: "din.Z")
    seeds["din.Z"] = seeds.pop("din")
    plain = convert(cachet, seeds["din.Z"][0], "din", "din", work)[:65536]
    seeds["din"] = (plain[:plain.rindex(b"\n") + 1], "din")
    for fmt in ("tt6", "tt6e", "ctr"):
        seeds[fmt] = (convert(cachet, seeds["din"][0], "din", fmt, work), fmt)
    return seeds


def convert(cachet, data, src_fmt, to, work):
    src = os.path.join(work, "conv.in")
    dst = os.path.join(work, "conv." + to)
    with open(src, "wb") as f:
        f.write(data)
    subprocess.run([cachet, "convert", "-f", src_fmt, "--to", to, "-o", dst, src],
                   check=True, stderr=subprocess.DEVNULL)
    with open(dst, "rb") as f:
        return f.read()


def mutations(r, seeds, work, n, seed, jobs):
    """n flips and n cuts of each seed, made in order from one seeded
    generator (so that a case repeats from its seed and number), run jobs
    at a time."""
    rng = random.Random(seed)
    cases = []
    for label in sorted(seeds):
        data, fmt = seeds[label]
        for k in range(n):
            # flips: 1-16 bytes, each xor'd with a random non-zero byte
            b = bytearray(data)
            for _ in range(rng.randint(1, 16)):
                i = rng.randrange(len(b))
                b[i] ^= rng.randint(1, 255)
            path = os.path.join(work, "flip%d.%s" % (k, label))
            with open(path, "wb") as f:
                f.write(b)
            args = ["-f", fmt] + (["--lenient"] if k % 2 else [])
            cases.append(("flip", "%s seed %d case %d" % (label, seed, k), path, args,
                          fmt == "vixl"))
        for k in range(n):
            cut = rng.randrange(len(data))
            path = os.path.join(work, "cut%d.%s" % (k, label))
            with open(path, "wb") as f:
                f.write(data[:cut])
            args = ["-f", fmt] + (["--lenient"] if k % 2 else [])
            cases.append(("truncate", "%s cut at %d (seed %d case %d)" % (label, cut, seed, k),
                          path, args, fmt == "vixl"))
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        list(ex.map(lambda c: r.case(c[0], c[1], c[2], c[3], info=c[4]), cases))
    for c in cases:
        os.unlink(c[2])


def bombs(r, work):
    zeros = b"\0" * (1 << 20)
    gz = os.path.join(work, "bomb.gz")
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(gz, "wb") as f:
        for _ in range(1024):
            f.write(c.compress(zeros))
        f.write(c.flush())
    r.case("bomb", "gzip bomb, detected", gz)
    for fmt in ("din", "drmemtrace", "vixl", "tarmac", "ctr"):
        r.case("bomb", "gzip bomb, -f %s" % fmt, gz, ["-f", fmt])
    # a gzip of a gzip bomb
    nested = os.path.join(work, "nested.gz")
    c2 = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(gz, "rb") as f, open(nested, "wb") as g:
        g.write(c2.compress(f.read()) + c2.flush())
    r.case("bomb", "gzip of a gzip bomb, -f din", nested, ["-f", "din"])
    zp = os.path.join(work, "bomb.zip")
    with zipfile.ZipFile(zp, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("drmemtrace.bomb.0000.trace", "w", force_zip64=True) as m:
            for _ in range(1024):
                m.write(zeros)
    r.case("bomb", "zip bomb, detected", zp)
    r.case("bomb", "zip bomb, -f drmemtrace", zp, ["-f", "drmemtrace"])
    r.case("bomb", "zip bomb, -f drmemtrace --lenient", zp, ["-f", "drmemtrace", "--lenient"])


def zip_names(r, seeds, work):
    member = seeds["drmemtrace-raw"][0]
    names = ["../../../etc/passwd", "/abs/path.trace", "a\nb.trace", "", "x" * 60000,
             "dir/", "chunk.0000", "chunk.0000", "\u00e9t\u00e9.trace", "a\\b.trace",
             "-n", "trace\0nul"]
    for i, name in enumerate(names):
        zp = os.path.join(work, "names%d.zip" % i)
        with zipfile.ZipFile(zp, "w", zipfile.ZIP_DEFLATED) as z:
            info = zipfile.ZipInfo(name)
            z.writestr(info, member)
            if i == 6:  # a duplicate name: two members called chunk.0000
                z.writestr(zipfile.ZipInfo(name), member)
        r.case("zipnames", "zip member %r" % name[:40], zp, ["-f", "drmemtrace"])
        r.case("zipnames", "zip member %r, detected" % name[:40], zp)


def empty_dirs(r, work):
    d = os.path.join(work, "empty")
    os.mkdir(d)
    for i in range(5000):
        open(os.path.join(d, "f%05d" % i), "wb").close()
    r.case("emptydir", "5000 empty files", d)
    r.case("emptydir", "5000 empty files, -f drmemtrace", d, ["-f", "drmemtrace"])
    d2 = os.path.join(work, "emptyzip")
    os.mkdir(d2)
    for i in range(5000):
        open(os.path.join(d2, "drmemtrace.t.%05d.trace.zip" % i), "wb").close()
    r.case("emptydir", "5000 empty .trace.zip", d2)
    r.case("emptydir", "5000 empty .trace.zip, -f drmemtrace", d2, ["-f", "drmemtrace"])


def symlinks(r, seeds, work):
    loop = os.path.join(work, "loop")
    os.symlink("loop", loop)
    r.case("symlink", "a link to itself", loop)
    a, b = os.path.join(work, "la"), os.path.join(work, "lb")
    os.symlink("lb", a)
    os.symlink("la", b)
    r.case("symlink", "two links to each other", a)
    d = os.path.join(work, "linkdir")
    os.mkdir(d)
    with open(os.path.join(d, "drmemtrace.a.0001.trace"), "wb") as f:
        f.write(seeds["drmemtrace-raw"][0])
    os.symlink("drmemtrace.b.0002.trace", os.path.join(d, "drmemtrace.b.0002.trace"))
    os.symlink(".", os.path.join(d, "trace"))
    r.case("symlink", "a trace directory with a loop inside", d,
           name="drmemtrace.b.0002.trace")
    r.case("symlink", "a trace directory with a loop inside, -f drmemtrace", d,
           ["-f", "drmemtrace"], name="drmemtrace.b.0002.trace")


def reap(w):
    """Wait a little for a FIFO's writer, then end it: a writer still blocked
    in open() means the reader stopped before opening the FIFO."""
    try:
        w.wait(timeout=5)
    except subprocess.TimeoutExpired:
        w.kill()
        w.wait()


def fifos(r, seeds, work):
    for label in ("din", "vixl", "drmemtrace-gz"):
        data, fmt = seeds[label]
        fifo = os.path.join(work, "fifo.%s" % label)
        src = os.path.join(work, "fifo-src.%s" % label)
        with open(src, "wb") as f:
            f.write(data)
        os.mkfifo(fifo)
        # The writer copies from a file, so nothing here blocks on it; it
        # waits in open() until the reader comes and is ended below if the
        # reader never does (an error before the open is not a hang).
        w = subprocess.Popen(["sh", "-c", 'cat "$1" >"$0"', fifo, src])
        r.case("fifo", "FIFO fed a %s trace" % label, fifo, info=fmt == "vixl")
        reap(w)
    fifo = os.path.join(work, "fifo.empty")
    os.mkfifo(fifo)
    w = subprocess.Popen(["sh", "-c", ': >"$0"', fifo])
    r.case("fifo", "FIFO closed without a byte", fifo)
    reap(w)
    with open(os.path.join(work, "stdin.din"), "wb") as f:
        f.write(seeds["din"][0])
    with open(os.path.join(work, "stdin.din"), "rb") as f:
        r.case("fifo", "stdin", "-", ["-f", "din"], stdin=f)


def urandom(r):
    r.case("urandom", "/dev/urandom, detected", "/dev/urandom")
    for fmt in ("din", "drmemtrace", "tarmac", "tracematcher", "vixl", "tt6", "tt6e", "ctr"):
        r.case("urandom", "/dev/urandom -f %s" % fmt, "/dev/urandom", ["-f", fmt])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cachet")
    ap.add_argument("--cases", type=int, default=100, help="flips and cuts per format")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, help="flip and cut cases run at once")
    ap.add_argument("--classes", default="flip,truncate,bomb,zipnames,emptydir,symlink,fifo,"
                                         "urandom")
    ap.add_argument("--keep", help="work in this directory and keep it")
    a = ap.parse_args()
    corpus = os.environ.get("CACHET_CORPUS")
    if not corpus or not os.path.isdir(corpus):
        print("skipped: CACHET_CORPUS is not set (the adversarial cases start from real traces)")
        return 77
    cachet = os.path.abspath(a.cachet)
    work = a.keep or tempfile.mkdtemp(prefix="cachet-adv.")
    os.makedirs(work, exist_ok=True)
    classes = a.classes.split(",")
    r = Runner(cachet, work)
    try:
        seeds = seed_traces(cachet, corpus, work)
        if "flip" in classes or "truncate" in classes:
            mutations(r, seeds, work, a.cases, a.seed, a.jobs)
        if "bomb" in classes:
            bombs(r, work)
        if "zipnames" in classes:
            zip_names(r, seeds, work)
        if "emptydir" in classes:
            empty_dirs(r, work)
        if "symlink" in classes:
            symlinks(r, seeds, work)
        if "fifo" in classes:
            fifos(r, seeds, work)
        if "urandom" in classes:
            urandom(r)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    total_fail = 0
    print("%-10s %7s %9s" % ("class", "cases", "failures"))
    for cls in classes:
        cases, fails = r.results.get(cls, [0, []])
        print("%-10s %7d %9d" % (cls, cases, len(fails)))
        total_fail += len(fails)
    for cls in classes:
        for f in r.results.get(cls, [0, []])[1][:20]:
            print("FAIL %s: %s" % (cls, f))
    print("%d passed, %d failed" % (sum(v[0] for v in r.results.values()) - total_fail,
                                    total_fail))
    return 1 if total_fail else 0


if __name__ == "__main__":
    sys.exit(main())
