#!/usr/bin/env python3
"""drmemtrace_l1_reference.py - an independent reference for the L1 caches of
one core: decodes a 64-bit drmemtrace file (plain, or a zip of chunk members)
and replays it through a 32 KiB 8-way LRU L1I and L1D with 64-byte lines,
splitting every access at line boundaries (each piece one access).

Written from the record layout of DynamoRIO's trace_entry_t (u16 type, u16
size, u64 addr) and drcachesim's documented behaviour, sharing nothing with
cachet's C code. Record kinds it does not know stop it (exit 2), so that a
trace it cannot judge is never judged.

    drmemtrace_l1_reference.py TRACE drcachesim|core

Size-0 loads and stores (the tracer writes them when it could not tell an
operand's size, e.g. the XSAVE family) cover [addr, addr + size - 1]: with
"drcachesim" that range is empty at a line start and one line otherwise,
as drcachesim computes it; with "core" they touch one byte at addr, the
rule of cachet's core model (sim/hier.c).

Prints JSON: {"l1i": [accesses, misses], "l1d": [accesses, misses]}.
"""
import json
import struct
import sys
import zipfile

LINE, SETS, WAYS = 64, 32 * 1024 // 64 // 8, 8

FETCH = {10, 11, 12, 13, 14, 15, 16, 31, 48, 49}  # instruction kinds with a fetch
QUIET = {22, 23, 24, 25, 26, 28, 29, 47}           # thread, exit, pid, header,
                                                   # footer, marker, no-fetch, encoding


class Cache:
    def __init__(self):
        self.sets = [[] for _ in range(SETS)]  # most recently used last
        self.accesses = self.misses = 0

    def touch(self, line):
        ways = self.sets[line % SETS]
        self.accesses += 1
        if line in ways:
            ways.remove(line)
        else:
            self.misses += 1
            if len(ways) == WAYS:
                ways.pop(0)
        ways.append(line)

    def access(self, addr, size, mode):
        if size == 0 and mode == 'core':
            size = 1
        last = addr + size - 1
        for line in range(addr // LINE, last // LINE + 1):  # empty when last < addr's line
            self.touch(line)


def records(path):
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            data = b''.join(z.read(i) for i in z.infolist())
    else:
        with open(path, 'rb') as f:
            data = f.read()
    if len(data) % 12:
        sys.exit('%s: not a whole number of 12-byte records' % path)
    return struct.iter_unpack('<HHQ', data)


def main():
    path, mode = sys.argv[1], sys.argv[2]
    if mode not in ('drcachesim', 'core'):
        sys.exit('mode: drcachesim or core')
    l1i, l1d = Cache(), Cache()
    for i, (kind, size, addr) in enumerate(records(path)):
        if kind in FETCH:
            if size:  # size 0: the pc of data records only
                l1i.access(addr, size, mode)
        elif kind in (0, 1):
            l1d.access(addr, size, mode)
        elif kind not in QUIET:
            print('record %d: record type %d is not handled here' % (i, kind), file=sys.stderr)
            sys.exit(2)
    print(json.dumps({'l1i': [l1i.accesses, l1i.misses], 'l1d': [l1d.accesses, l1d.misses]}))


main()
