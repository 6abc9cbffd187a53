"""python_feed.py - how fast the Python module takes accesses from NumPy.

Feeds 10 M accesses held in NumPy arrays (kinds uint8, addresses uint64,
sizes uint32) to cachet.Simulator().feed on the built-in default hierarchy
(L1D 32K 8-way, L2 1M 16-way), best of 3, and prints accesses per second of
CPU time and of wall-clock time for two address streams: a strided walk of
8-byte loads over 4 MiB and uniform random loads and stores over 16 MiB.
Usage: PYTHONPATH=build/python python3 results/python_feed.py
"""
import time

import numpy

import cachet

N = 10_000_000


def best(kinds, addrs, sizes):
    cpu = wall = float("inf")
    for _ in range(3):
        sim = cachet.Simulator()
        c0, w0 = time.process_time(), time.perf_counter()
        sim.feed(kinds, addrs, sizes)
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
        assert sim.stats()["levels"][0]["accesses"] == N
    return N / cpu / 1e6, N / wall / 1e6


sizes = numpy.full(N, 8, dtype=numpy.uint32)
strided = (numpy.arange(N, dtype=numpy.uint64) * 8) % (4 << 20)
loads = numpy.full(N, cachet.LOAD, dtype=numpy.uint8)
rng = numpy.random.default_rng(1)
rand = rng.integers(0, 16 << 20, N, dtype=numpy.uint64) & ~numpy.uint64(7)
mixed = rng.choice(numpy.array([cachet.LOAD, cachet.STORE], dtype=numpy.uint8), N)
for name, k, a in (("strided 8-byte loads over 4 MiB", loads, strided),
                   ("random loads and stores over 16 MiB", mixed, rand)):
    cpu, wall = best(k, a, sizes)
    print(f"{name}: {cpu:.1f} M accesses/s of CPU time, {wall:.1f} M/s wall-clock")
