#!/usr/bin/env python3
"""dinero_random.py - random (configuration, trace) pairs run by DineroIV 7
and by cachet, every figure both print compared.

usage: dinero_random.py CACHET [--pairs N] [--seed S] [--corpus DIR] [--keep DIR]

DINERO names the DineroIV 7 binary; without it the script says so and exits
77 (skipped). The random generator is seeded (--seed, default 1), so a run
is repeatable; a pair that differs is printed with both command lines and
the fields that differ, and the exit status is 1.

Configurations: an L1I and an L1D, each 256 B to 16 KiB with lines of 16 to
128 B (4 to 128 B in a quarter of the levels), direct-mapped to fully
associative, sub-blocks of 1 byte to the line (at most 16 a line) in a third of the levels
(-sbsize, subblock), a fetch policy in a third of them (-fetch, -pfdist,
-pfabort: prefetcher, prefetch_distance, prefetch_abort), LRU or FIFO, write-back, write-through or nofetch,
write-allocate, not or nofetch (the L1I only reads), optionally a
unified L2 and L3 (up to 256 KiB, any line size, the same policies), with
or without the 3C split at each level; in a quarter of the pairs a periodic
flush every 200 to 5,000 references (-flushcount, flush_every). Everything is
copied back at the end (DineroIV always does so; cachet's flush_at_end = yes).
Traces: windows of 2,000 to 30,000 references of the 093.nasa7 din trace
when CACHET_CORPUS (or --corpus) has it, and synthetic din traces of reads,
writes, fetches and accesses of unknown type (labels 0, 1, 2, 3), with a
copy back or an invalidate of one block (labels 4, 5) in about one record
of 55, over a few hot regions and a cold one.

Compared for every level: demand fetches and demand misses by kind
(DineroIV's Instrn, Read, Write, Misc columns: cachet's ifetch; load; store,
its write-backs from above and atomics; misc), and with the 3C split the compulsory,
capacity and conflict misses by kind; the bytes read from and written to
the next level (DineroIV's Bytes From Memory and Bytes To Memory of each
cache: cachet's bytes_from_below and bytes_to_below); the prefetch fetches and
misses and their 3C split, in the Total column (cachet counts them as one kind,
hwprefetch).
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

KIB = 1024


def pow2s(lo, hi):
    v, out = lo, []
    while v <= hi:
        out.append(v)
        v *= 2
    return out


def rand_level(rng, name, lo, hi, reads_only=False):
    size = rng.choice(pow2s(lo, hi))
    # lines of 4 and 8 bytes in a quarter of the levels: a din word covers a
    # 4-byte line (write_allocate = nofetch allocates only then)
    line = rng.choice([b for b in pow2s(4 if rng.random() < 0.25 else 16, 128) if b <= size])
    lines = size // line
    assoc = rng.choice([a for a in [1, 2, 4, 8, 16, lines] if a <= lines])
    lv = {'name': name, 'size': size, 'line': line, 'assoc': assoc,
          'repl': rng.choice('lf'), 'ccc': rng.random() < 0.5,
          'wback': 'a', 'walloc': 'a', 'sub': line}
    # sub-blocks (-sbsize) in a third of the levels: 1 byte to the line, at
    # most 16 per line (DineroIV 7, built with 32-bit addresses, takes the
    # mask of an access covering all 32 sub-blocks of a line as 0: see
    # results/FIDELITY.md)
    if rng.random() < 1 / 3:
        lv['sub'] = rng.choice(pow2s(max(1, line // 16), line))
    # a fetch policy (-fetch) in a third of the levels, at a distance of up to
    # a line (-pfdist; DineroIV refuses more), dropping some (-pfabort) in a
    # quarter of those
    lv['fetch'], lv['pfdist'], lv['pfabort'] = 'd', 1, 0
    if rng.random() < 1 / 3:
        lv['fetch'] = rng.choice('amtls')
        lv['pfdist'] = rng.randint(1, line // lv['sub'])
        lv['pfabort'] = rng.randint(1, 99) if rng.random() < 0.25 else 0
    if not reads_only:
        lv['wback'] = rng.choice('anf')
        lv['walloc'] = rng.choice('anf')
    return lv


def rand_config(rng):
    levels = [rand_level(rng, 'l1i', 256, 16 * KIB, True),
              rand_level(rng, 'l1d', 256, 16 * KIB)]
    if rng.random() < 0.6:
        levels.append(rand_level(rng, 'l2', 1 * KIB, 256 * KIB))
        if rng.random() < 0.3:
            levels.append(rand_level(rng, 'l3', 2 * KIB, 256 * KIB))
    # a periodic flush (-flushcount) in a quarter of the pairs
    levels[0]['flush'] = rng.randint(200, 5000) if rng.random() < 0.25 else 0
    return levels


def dinero_args(levels):
    args = []
    for lv in levels:
        if lv['name'] == 'l1i':
            p = '-l1-i'
        elif lv['name'] == 'l1d':
            p = '-l1-d'
        else:
            p = '-%s-u' % lv['name']
        args += [p + 'size', str(lv['size']), p + 'bsize', str(lv['line']),
                 p + 'assoc', str(lv['assoc']), p + 'repl', lv['repl']]
        if lv['sub'] != lv['line']:
            args += [p + 'sbsize', str(lv['sub'])]
        if lv['fetch'] != 'd':
            args += [p + 'fetch', lv['fetch'], p + 'pfdist', str(lv['pfdist']),
                     p + 'pfabort', str(lv['pfabort'])]
        if lv['name'] != 'l1i':  # an instruction cache takes no write policy
            args += [p + 'wback', lv['wback'], p + 'walloc', lv['walloc']]
        if lv['ccc']:
            args.append(p + 'ccc')
    if levels[0]['flush']:
        args += ['-flushcount', str(levels[0]['flush'])]
    return args + ['-informat', 'd']


POLICY = {'a': 'yes', 'n': 'no', 'f': 'nofetch'}   # DineroIV's -wback / -walloc letters
FETCH = {'d': 'none', 'a': 'always', 'm': 'miss', 't': 'tagged', 'l': 'load-forward',
         's': 'subblock'}                           # DineroIV's -fetch letters


def cachet_ini(levels):
    out = ['[system]', 'flush_at_end = yes', 'flush_every = %d' % levels[0]['flush'],
           'miss_classes = %s' % ('yes' if any(lv['ccc'] for lv in levels) else 'no')]
    for lv in levels:
        out += ['[%s]' % lv['name'], 'size = %d' % lv['size'], 'line = %d' % lv['line'],
                'assoc = %d' % lv['assoc'], 'subblock = %d' % lv['sub'],
                'prefetcher = %s' % FETCH[lv['fetch']],
                'prefetch_distance = %d' % lv['pfdist'], 'prefetch_abort = %d' % lv['pfabort'],
                'replacement = %s' % ('lru' if lv['repl'] == 'l' else 'fifo'),
                'write_back = %s' % POLICY[lv['wback']],
                'write_allocate = %s' % POLICY[lv['walloc']]]
    return '\n'.join(out) + '\n'


def synthetic_trace(rng, n):
    regions = [(rng.randrange(0, 1 << 24) & ~63, rng.choice([256, 1024, 4096, 32768]))
               for _ in range(rng.randint(1, 4))]
    lines = []
    for _ in range(n):
        r = rng.random()
        if r < 0.1:
            addr = rng.randrange(0, 1 << 26)
        else:
            base, span = rng.choice(regions)
            addr = base + rng.randrange(0, span)
        label = rng.choices([0, 1, 2, 3, 4, 5], [40, 20, 40, 10, 1, 1])[0]
        lines.append('%d %x\n' % (label, addr & ~3))
    return ''.join(lines)


COLS = ['Total', 'Instrn', 'Data', 'Read', 'Write', 'Misc']


def parse_dinero(text):
    """{level: {metric: {column: int}}} for the metrics compared."""
    out, cur = {}, None
    for line in text.splitlines():
        m = re.match(r'^(l\d)-(i|d|u)cache$', line.strip())
        if m:
            cur = {'i': 'l1i', 'd': 'l1d', 'u': m.group(1)}[m.group(2)]
            out[cur] = {}
            continue
        if cur is None:
            continue
        m = re.match(r'^\s*(Demand Fetches|Demand Misses|Compulsory misses|Capacity misses|'
                     r'Conflict misses|Prefetch Fetches|Prefetch Misses|PF compulsory misses|'
                     r'PF capacity misses|PF conflict misses)\s+(.*)$', line)
        if m:
            vals = m.group(2).split()
            d = {c: int(float(v)) for c, v in zip(COLS, vals)}
            if m.group(1).startswith('P'):   # cachet counts prefetches as one kind
                d = {'Total': d['Total']}
            out[cur][m.group(1)] = d
        m = re.match(r'^\s*Bytes (From|To) Memory\s+(\d+)', line)
        if m:
            out[cur]['Bytes ' + m.group(1)] = {'Total': int(m.group(2))}
    return out


def cachet_figures(js, levels):
    """The same shape as parse_dinero's, from cachet's JSON."""
    out = {}
    for lv in js['levels']:
        bk = lv['by_kind']
        col_kinds = {'Instrn': ['ifetch'], 'Read': ['load'],
                     'Write': ['store', 'writeback', 'atomic'], 'Misc': ['misc']}

        def col(field):
            d = {c: sum(bk[k][field] for k in ks if k in bk) for c, ks in col_kinds.items()}
            d['Data'] = d['Read'] + d['Write'] + d['Misc']
            d['Total'] = d['Instrn'] + d['Data']
            return d
        f = {'Demand Fetches': col('accesses'), 'Demand Misses': col('misses'),
             'Bytes From': {'Total': lv['bytes_from_below']},
             'Bytes To': {'Total': lv['bytes_to_below']}}
        if js.get('miss_classes', True) and 'compulsory' in lv:
            f['Compulsory misses'] = col('compulsory')
            f['Capacity misses'] = col('capacity')
            f['Conflict misses'] = col('conflict')
        pf = bk.get('hwprefetch', {})
        f['Prefetch Fetches'] = {'Total': pf.get('accesses', 0)}
        f['Prefetch Misses'] = {'Total': pf.get('misses', 0)}
        for c3 in ('compulsory', 'capacity', 'conflict'):
            f['PF %s misses' % c3] = {'Total': pf.get(c3, 0)}
        out[lv['name']] = f
    return out


def compare(dn, ct, levels):
    diffs = []
    for lv in levels:
        name = lv['name']
        if name not in dn or name not in ct:
            diffs.append('%s: missing (dinero %s, cachet %s)' % (name, name in dn, name in ct))
            continue
        for metric, cols in dn[name].items():
            if metric not in ct[name]:
                diffs.append('%s %s: cachet has none' % (name, metric))
                continue
            for c in ['Instrn', 'Read', 'Write', 'Misc', 'Total']:
                want = cols.get(c, 0)
                got = ct[name][metric].get(c, 0)
                if want != got:
                    diffs.append('%s %s %s: dinero %d, cachet %d' % (name, metric, c, want, got))
    return diffs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('cachet')
    ap.add_argument('--pairs', type=int, default=40)
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--corpus', default=os.environ.get('CACHET_CORPUS', ''))
    ap.add_argument('--keep', help='write the traces and configurations of failing pairs here')
    a = ap.parse_args()
    dinero = os.environ.get('DINERO', '')
    if not dinero or not os.access(dinero, os.X_OK):
        print('skipped: DINERO does not name the DineroIV 7 binary')
        return 77
    rng = random.Random(a.seed)
    nasa = None
    path = os.path.join(a.corpus, 'din', '093.nasa7.din.Z') if a.corpus else ''
    if path and os.path.exists(path):
        nasa = subprocess.run(['gzip', '-dc', path], stdout=subprocess.PIPE,
                              check=True).stdout.decode().splitlines(keepends=True)
    tmp = tempfile.mkdtemp(prefix='dinero_random.')
    failed = compared = 0
    for i in range(a.pairs):
        levels = rand_config(rng)
        n = rng.randint(2000, 30000)
        if nasa and rng.random() < 0.5:
            start = rng.randrange(0, len(nasa) - n)
            trace, what = ''.join(nasa[start:start + n]), 'nasa7[%d:%d]' % (start, start + n)
        else:
            trace, what = synthetic_trace(rng, n), 'synthetic %d' % n
        tpath, ipath, jpath = (os.path.join(tmp, f) for f in ('t.din', 'c.ini', 'c.json'))
        with open(tpath, 'w') as f:
            f.write(trace)
        with open(ipath, 'w') as f:
            f.write(cachet_ini(levels))
        with open(tpath) as f:
            d = subprocess.run([dinero] + dinero_args(levels), stdin=f, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
        c = subprocess.run([a.cachet, 'run', '-q', '-c', ipath, '--json', jpath, tpath],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if d.returncode != 0 or c.returncode != 0:
            diffs = ['dinero exit %d: %s' % (d.returncode, d.stdout.decode()[-300:]),
                     'cachet exit %d: %s' % (c.returncode, c.stdout.decode()[-300:])]
        else:
            with open(jpath) as f:
                js = json.load(f)
            diffs = compare(parse_dinero(d.stdout.decode()), cachet_figures(js, levels), levels)
        compared += 1
        if diffs:
            failed += 1
            print('pair %d (%s): %s %s' % (i, what, dinero, ' '.join(dinero_args(levels))))
            for x in diffs[:12]:
                print('   ', x)
            if a.keep:
                os.makedirs(a.keep, exist_ok=True)
                for src, dst in ((tpath, 'pair%d.din' % i), (ipath, 'pair%d.ini' % i)):
                    with open(src) as fi, open(os.path.join(a.keep, dst), 'w') as fo:
                        fo.write(fi.read())
    print('%d pairs compared (seed %d), %d with a difference' % (compared, a.seed, failed))
    print('%d passed, %d failed' % (compared - failed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
