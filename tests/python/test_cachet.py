"""The Python module `cachet`: small hand-checkable cases, errors with their
parts, and the same figures as the command for a trace and a sweep.
Run with python3 -m unittest (CTest test `python`); NumPy (Debian
python3-numpy) is used when present, the tests that need it skip otherwise."""
import array
import json
import os
import subprocess
import tempfile
import unittest

import cachet

try:
    import numpy
except ImportError:
    numpy = None

SRC = os.environ.get("CACHET_SRC", os.getcwd())
CLI = os.environ.get("CACHET", os.path.join(SRC, "build", "cachet"))
TINY = os.path.join(SRC, "tests", "data", "tiny.din")
MATMUL = os.path.join(SRC, "workloads", "matmul48-blocked.din.zst")


def level(stats, name):
    return next(l for l in stats["levels"] if l["name"] == name)


class Accesses(unittest.TestCase):
    def test_one_access_at_a_time(self):
        # 1 KiB direct-mapped L1D, 64-byte lines: 0 and 1024 share set 0
        s = cachet.Simulator(overrides={"l1d.size": "1K", "l1d.assoc": 1})
        for a in (0, 8, 1024, 0):
            s.access("load", a, 8)
        l1 = level(s.stats(), "l1d")
        self.assertEqual((l1["accesses"], l1["hits"], l1["misses"]), (4, 1, 3))

    def test_kinds_by_name_and_number(self):
        s = cachet.Simulator()
        s.access("store", 0x100, 4)
        s.access(cachet.LOAD, 0x100, 4)
        l1 = level(s.stats(), "l1d")
        self.assertEqual((l1["accesses"], l1["misses"]), (2, 1))
        self.assertEqual(l1["by_kind"]["store"]["misses"], 1)
        with self.assertRaises(ValueError):
            s.access("jump", 0)

    def test_feed_from_array_module_and_constants(self):
        s = cachet.Simulator(overrides={"l1d.size": "1K", "l1d.assoc": 1})
        n = s.feed("load", array.array("Q", [0, 64, 1024, 0]), 8)
        self.assertEqual(n, 4)
        l1 = level(s.stats(), "l1d")
        self.assertEqual((l1["accesses"], l1["misses"]), (4, 4))

    def test_feed_rejects_mismatched_lengths_and_bad_kinds(self):
        s = cachet.Simulator()
        with self.assertRaises(ValueError):
            s.feed(array.array("B", [1, 1]), array.array("Q", [0]), 8)
        with self.assertRaises(ValueError) as cm:
            s.feed(array.array("B", [1, 4]), array.array("Q", [0, 64]), 8)
        self.assertIn("access 1: kind 4", str(cm.exception))
        self.assertEqual(level(s.stats(), "l1d")["accesses"], 1)  # the one before it

    def test_reset_stats_keeps_contents(self):
        s = cachet.Simulator()
        s.access("load", 0)
        s.reset_stats()
        s.access("load", 0)
        l1 = level(s.stats(), "l1d")
        self.assertEqual((l1["accesses"], l1["hits"]), (1, 1))

    @unittest.skipIf(numpy is None, "NumPy is not installed (Debian python3-numpy)")
    def test_feed_numpy_equals_access_one_by_one(self):
        rng = numpy.random.default_rng(7)
        addrs = rng.integers(0, 1 << 20, 20000, dtype=numpy.uint64)
        kinds = rng.choice(numpy.array([cachet.LOAD, cachet.STORE], dtype=numpy.uint8), 20000)
        a = cachet.Simulator()
        a.feed(kinds, addrs, numpy.full(20000, 8, dtype=numpy.uint32))
        b = cachet.Simulator()
        for k, x in zip(kinds.tolist(), addrs.tolist()):
            b.access(k, x, 8)
        self.assertEqual(a.stats()["levels"], b.stats()["levels"])


class Errors(unittest.TestCase):
    def test_config_error_names_file_and_reason(self):
        with tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False) as f:
            f.write("[l1d]\nsize = 64kb\n")
        try:
            with self.assertRaises(cachet.Error) as cm:
                cachet.Simulator(f.name)
            e = cm.exception
            self.assertEqual(e.file, f.name)
            self.assertIn("[l1d] size", e.reason)
            self.assertEqual(e.code, -4)
        finally:
            os.unlink(f.name)

    def test_override_error_names_the_key(self):
        with self.assertRaises(cachet.Error) as cm:
            cachet.Simulator(overrides={"l1d.assoc": "many"})
        self.assertEqual(cm.exception.file, "l1d.assoc=many")
        self.assertIn("assoc", cm.exception.reason)
        with self.assertRaises(cachet.Error) as cm:
            cachet.Simulator(overrides={"l3.latency": 30})
        self.assertIn("add it by setting its size too", str(cm.exception))

    def test_trace_error_has_a_position(self):
        with tempfile.NamedTemporaryFile("w", suffix=".din", delete=False) as f:
            f.write("0 100\n0 zz\n")
        try:
            with self.assertRaises(cachet.Error) as cm:
                cachet.Simulator().run(f.name, format="din")
            e = cm.exception
            self.assertEqual(e.file, f.name)
            self.assertTrue(e.position and e.position.startswith("2"), e.position)
            self.assertTrue(e.reason)
        finally:
            os.unlink(f.name)

    def test_missing_file(self):
        with self.assertRaises(cachet.Error) as cm:
            cachet.info("/nonexistent/trace.din")
        self.assertEqual(cm.exception.file, "/nonexistent/trace.din")


class SameAsTheCommand(unittest.TestCase):
    def test_run_stats_equal_run_json(self):
        s = cachet.Simulator()
        self.assertGreater(s.run(MATMUL), 0)
        got = s.stats()
        want = json.loads(subprocess.run([CLI, "run", "-q", "--json", "-", MATMUL],
                                         check=True, capture_output=True, text=True).stdout)
        self.assertEqual(got["levels"], want["levels"])
        self.assertEqual(got["cycles"], want["cycles"])
        self.assertEqual(set(got), set(want))

    def test_info_counts(self):
        d = cachet.info(TINY)
        self.assertEqual(d["format"], "din")
        self.assertEqual(d["accesses"], sum(d["kinds"].values()))
        self.assertGreater(d["accesses"], 0)

    def test_sweep_rows_are_dicts(self):
        with tempfile.TemporaryDirectory() as tmp:
            ini = os.path.join(tmp, "s.ini")
            with open(ini, "w") as f:
                f.write("[l1d]\nline = 64\n[sweep]\nl1d.size = 1K 2K 4K\n")
            rows = cachet.sweep(ini, [MATMUL])
            csv_path = os.path.join(tmp, "out.csv")
            subprocess.run([CLI, "sweep", "-q", "-o", csv_path, ini, MATMUL], check=True)
            import csv
            with open(csv_path) as f:
                want = list(csv.DictReader(f))
        self.assertEqual(len(rows), len(want))
        self.assertEqual([r["misses"] for r in rows], [r["misses"] for r in want])
        self.assertEqual(sorted({r["l1d.size"] for r in rows}), ["1024", "2048", "4096"])

    def test_sweep_format_is_forced(self):
        with tempfile.TemporaryDirectory() as tmp:
            ini = os.path.join(tmp, "s.ini")
            with open(ini, "w") as f:
                f.write("[sweep]\nl1d.size = 1K 2K\n")
            rows = cachet.sweep(ini, [TINY], format="tarmac")
        self.assertEqual({r["format"] for r in rows}, {"tarmac"})


if __name__ == "__main__":
    unittest.main()
