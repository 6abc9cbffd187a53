#!/usr/bin/env python3
"""dinero_regress.py - DineroIV 7's own regression configurations run by
DineroIV and by cachet, every figure both print compared.

usage: dinero_regress.py CACHET [--corpus DIR] [--only TAG]
       dinero_regress.py CACHET --facts FILE [--corpus DIR]
       dinero_regress.py CACHET --write-facts FILE [--corpus DIR]

DINERO names the DineroIV 7 binary; without it the script says so and exits
77 (skipped). The configurations are the lines of DineroIV's test-parms,
read from the testing directory of its distribution beside $DINERO (or
--testing DIR); without it the script says so and exits 77. Lines using
random replacement (-repl r: no two simulators draw alike) or a pixie-only
input format (tags ending in p or P) are left out; the others are run with
-informat d on din traces: 093.nasa7 from CACHET_CORPUS (or --corpus), and
the distribution's mm.32 converted to din by its p2d, built from p2d.c in a
temporary directory (nothing of it is kept).

Each DineroIV option becomes a cachet key: -lN-[idu]size, bsize, sbsize,
assoc, repl (l lru, f fifo), fetch (d none, a always, m miss, t tagged, l
load-forward, s subblock), pfdist, pfabort, walloc and wback (a yes, n no, f
nofetch), ccc ([system] miss_classes); -flushcount ([system] flush_every);
[system] flush_at_end = yes (DineroIV copies back at the end). DineroIV's
unified first level (-l1-u*) is cachet's [l2] with no [l1i] / [l1d] (every
access then starts there), its -l2-u* then [l3]. -stat-idcombine prints the
L1I and L1D as one; cachet's two are summed for it.

Compared as tests/dinero_random.py compares them: demand fetches and misses
by kind, the 3C split, prefetch fetches and misses (Total), bytes from and
to memory, at every level.

--write-facts FILE records, for every configuration, what DineroIV printed
on the first 200,000 references of 093.nasa7 (one JSON object a line: tag,
DineroIV command, cachet configuration, figures). --facts FILE compares
cachet with such a file and needs no DineroIV (tests/data/dinero_regress.jsonl,
run by tests/cli/dinero_regress.sh); without the corpus it exits 77.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dinero_random as dr  # noqa: E402

FETCH = dr.FETCH
POLICY = dr.POLICY


def parse_parms(path):
    """[(tag, [args])] of test-parms, comments and blank lines left out."""
    out = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if not fields or fields[0].startswith('#'):
                continue
            out.append((fields[0], fields[1:]))
    return out


def usable(tag, args):
    if tag.endswith('p') or tag.endswith('P'):
        return 'pixie-only input format'
    for i, a in enumerate(args):
        if re.match(r'^-l\d-[iud]repl$', a) and args[i + 1] == 'r':
            return 'random replacement'
    return None


def size_value(text):
    m = re.match(r'^(\d+)([kKmMgG]?)$', text)
    if not m:
        raise ValueError('size %r' % text)
    return int(m.group(1)) * {'': 1, 'k': 1 << 10, 'm': 1 << 20, 'g': 1 << 30}[m.group(2).lower()]


def translate(args):
    """(dinero args with -informat d, cachet INI text, idcombine, unified L1)."""
    levels, dargs, sysk = {}, [], {'flush_every': 0, 'miss_classes': 'no'}
    idcombine, i = False, 0
    while i < len(args):
        a = args[i]
        if a == '-informat':
            i += 2
            continue
        if a == '-stat-idcombine':
            idcombine = True
            dargs.append(a)
            i += 1
            continue
        if a == '-flushcount':
            sysk['flush_every'] = size_value(args[i + 1])
            dargs += args[i:i + 2]
            i += 2
            continue
        m = re.match(r'^-l(\d)-([iud])(\w+)$', a)
        if not m:
            raise ValueError('option %s' % a)
        lv = levels.setdefault((int(m.group(1)), m.group(2)), {})
        key = m.group(3)
        if key == 'ccc':
            lv['ccc'] = True
            sysk['miss_classes'] = 'yes'
            dargs.append(a)
            i += 1
            continue
        lv[key] = args[i + 1]
        dargs += args[i:i + 2]
        i += 2
    unified_l1 = (1, 'u') in levels
    out = ['[system]', 'flush_at_end = yes', 'flush_every = %d' % sysk['flush_every'],
           'miss_classes = %s' % sysk['miss_classes']]
    for (n, side), lv in sorted(levels.items()):
        name = {'i': 'l1i', 'd': 'l1d'}[side] if side != 'u' else 'l%d' % (n + 1 if unified_l1 else n)
        line = size_value(lv['bsize'])
        out += ['[%s]' % name, 'size = %d' % size_value(lv['size']), 'line = %d' % line,
                'assoc = %s' % lv.get('assoc', '1'),
                'subblock = %d' % size_value(lv.get('sbsize', str(line))),
                'replacement = %s' % {'l': 'lru', 'f': 'fifo'}[lv.get('repl', 'l')],
                'prefetcher = %s' % FETCH[lv.get('fetch', 'd')],
                'prefetch_distance = %s' % lv.get('pfdist', '1'),
                'prefetch_abort = %s' % lv.get('pfabort', '0')]
        if side != 'i':
            out += ['write_back = %s' % POLICY[lv.get('wback', 'a')],
                    'write_allocate = %s' % POLICY[lv.get('walloc', 'a')]]
    return dargs + ['-informat', 'd'], '\n'.join(out) + '\n', idcombine, unified_l1


def dinero_figures(text, unified_l1):
    """parse_dinero's shape with cachet's level names: the combined L1I and
    L1D of -stat-idcombine as 'l1c', a unified DineroIV level one lower."""
    out = {}
    for name, f in dr.parse_dinero(text.replace('l1-I/Dcaches', 'l1-ucache')).items():
        if name in ('l1i', 'l1d'):
            out[name] = f
        elif unified_l1:
            out['l%d' % (int(name[1]) + 1)] = f
        elif name == 'l1':
            out['l1c'] = f
        else:
            out[name] = f
    return out


FACT_REFS = 200000


def nasa_head(corpus, tmp):
    """The first FACT_REFS references of 093.nasa7 as a din file, or None."""
    path = os.path.join(corpus, 'din', '093.nasa7.din.Z') if corpus else ''
    if not path or not os.path.exists(path):
        return None
    text = subprocess.run(['gzip', '-dc', path], stdout=subprocess.PIPE,
                          check=True).stdout.decode().splitlines(keepends=True)
    out = os.path.join(tmp, 'nasa7-head.din')
    with open(out, 'w') as f:
        f.write(''.join(text[:FACT_REFS]))
    return out


def cachet_run(cachet, ini, trace, tmp, idcombine):
    """cachet's figures in parse_dinero's shape (with 'l1c' when combined),
    or an error text."""
    ipath, jpath = os.path.join(tmp, 'c.ini'), os.path.join(tmp, 'c.json')
    with open(ipath, 'w') as f:
        f.write(ini)
    c = subprocess.run([cachet, 'run', '-q', '-c', ipath, '--json', jpath, trace],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if c.returncode != 0:
        return 'cachet exit %d: %s' % (c.returncode, c.stdout.decode()[-300:])
    with open(jpath) as f:
        ct = dr.cachet_figures(json.load(f), None)
    if idcombine and 'l1i' in ct and 'l1d' in ct:
        comb = {}
        for metric in ct['l1d']:
            cols = set(ct['l1i'].get(metric, {})) | set(ct['l1d'][metric])
            comb[metric] = {col: ct['l1i'].get(metric, {}).get(col, 0) +
                            ct['l1d'][metric].get(col, 0) for col in cols}
        ct['l1c'] = comb
    return ct


def check_facts(a, facts):
    """Compare cachet with the figures of a facts file."""
    tmp = tempfile.mkdtemp(prefix='dinero_regress.')
    trace = nasa_head(a.corpus, tmp)
    if not trace:
        print('skipped: CACHET_CORPUS has no din/093.nasa7.din.Z')
        return 77
    passed = failed = 0
    with open(facts) as f:
        for line in f:
            if not line.strip() or line.startswith('#'):
                continue
            fact = json.loads(line)
            ct = cachet_run(a.cachet, fact['ini'], trace, tmp, fact['idcombine'])
            diffs = [ct] if isinstance(ct, str) else dr.compare(
                fact['figures'], ct, [{'name': n} for n in fact['figures']])
            if diffs:
                failed += 1
                print('%s: %s' % (fact['tag'], fact['dinero']))
                for x in diffs[:12]:
                    print('   ', x)
            else:
                passed += 1
    shutil.rmtree(tmp, ignore_errors=True)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('cachet')
    ap.add_argument('--corpus', default=os.environ.get('CACHET_CORPUS', ''))
    ap.add_argument('--testing', help="DineroIV's testing directory")
    ap.add_argument('--only', help='run this tag alone')
    ap.add_argument('--facts', help='compare with the figures of this file (no DineroIV)')
    ap.add_argument('--write-facts', help="write DineroIV's figures on nasa7's head here")
    a = ap.parse_args()
    if a.facts:
        return check_facts(a, a.facts)
    dinero = os.environ.get('DINERO', '')
    if not dinero or not os.access(dinero, os.X_OK):
        print('skipped: DINERO does not name the DineroIV 7 binary')
        return 77
    testing = a.testing or os.path.join(os.path.dirname(os.path.abspath(dinero)), 'testing')
    parms = os.path.join(testing, 'test-parms')
    if not os.path.exists(parms):
        print('skipped: no DineroIV testing directory with test-parms at %s' % testing)
        return 77
    tmp = tempfile.mkdtemp(prefix='dinero_regress.')
    if a.write_facts:
        trace = nasa_head(a.corpus, tmp)
        if not trace:
            print('skipped: CACHET_CORPUS has no din/093.nasa7.din.Z')
            return 77
        with open(a.write_facts, 'w') as out:
            out.write('# DineroIV 7 (d4-7, its distribution built with ./configure && make) on '
                      'the first %d references of\n# 093.nasa7.din.Z (gzip -dc | head -n %d | '
                      'dineroIV ARGS), for every configuration of its\n# testing/test-parms '
                      'without -repl r or a pixie-only format; written by\n# tests/dinero_regress.py '
                      '--write-facts. figures: what DineroIV printed.\n' % (FACT_REFS, FACT_REFS))
            for tag, args in parse_parms(parms):
                if usable(tag, args):
                    continue
                dargs, ini, idcombine, unified_l1 = translate(args)
                with open(trace) as f:
                    d = subprocess.run([dinero] + dargs, stdin=f, stdout=subprocess.PIPE,
                                       check=True)
                out.write(json.dumps({'tag': tag, 'dinero': 'dineroIV ' + ' '.join(dargs),
                                      'idcombine': idcombine, 'ini': ini,
                                      'figures': dinero_figures(d.stdout.decode(), unified_l1)},
                                     sort_keys=True) + '\n')
        shutil.rmtree(tmp, ignore_errors=True)
        return 0
    traces = []
    nasa = os.path.join(a.corpus, 'din', '093.nasa7.din.Z') if a.corpus else ''
    if nasa and os.path.exists(nasa):
        with open(os.path.join(tmp, 'nasa7.din'), 'wb') as f:
            subprocess.run(['gzip', '-dc', nasa], stdout=f, check=True)
        traces.append(('nasa7', os.path.join(tmp, 'nasa7.din')))
    else:
        print('note: no CACHET_CORPUS with din/093.nasa7.din.Z: nasa7 left out')
    mm = os.path.join(testing, 'mm.32')
    p2d = os.path.join(tmp, 'p2d')
    if os.path.exists(mm) and subprocess.run(
            ['cc', '-O', '-o', p2d, os.path.join(testing, 'p2d.c')],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
        with open(mm, 'rb') as fi, open(os.path.join(tmp, 'mm32.din'), 'wb') as fo:
            subprocess.run([p2d], stdin=fi, stdout=fo, check=True)
        traces.append(('mm.32', os.path.join(tmp, 'mm32.din')))
    else:
        print('note: mm.32 or a C compiler for p2d.c missing: mm.32 left out')
    if not traces:
        print('skipped: no trace to run')
        return 77
    passed = failed = left = 0
    for tag, args in parse_parms(parms):
        if a.only and tag != a.only:
            continue
        why = usable(tag, args)
        if why:
            left += 1
            continue
        dargs, ini, idcombine, unified_l1 = translate(args)
        for tname, tpath in traces:
            with open(tpath) as f:
                d = subprocess.run([dinero] + dargs, stdin=f, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
            ct = cachet_run(a.cachet, ini, tpath, tmp, idcombine)
            if d.returncode != 0 or isinstance(ct, str):
                diffs = ['dinero exit %d: %s' % (d.returncode, d.stdout.decode()[-300:]),
                         ct if isinstance(ct, str) else 'cachet ran']
            else:
                dn = dinero_figures(d.stdout.decode(), unified_l1)
                diffs = dr.compare(dn, ct, [{'name': n} for n in dn])
            if diffs:
                failed += 1
                print('%s on %s: %s %s' % (tag, tname, dinero, ' '.join(dargs)))
                for x in diffs[:12]:
                    print('   ', x)
            else:
                passed += 1
    shutil.rmtree(tmp, ignore_errors=True)
    print('%d runs equal, %d differ; %d configurations left out (random replacement or '
          'pixie-only format)' % (passed, failed, left))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
