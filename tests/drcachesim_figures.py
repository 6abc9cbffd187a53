"""drcachesim_figures.py - drcachesim's printed figures and where cachet's
JSON (run --compat drcachesim) holds each, for the tests that compare them
(tests/cli/drcachesim_facts.sh, tests/cli/drcachesim_oracle.sh)."""
import re

# "Field:" as drcachesim prints it under a cache -> (object, key) of a level
FIELDS = {'Hits': ('drcachesim', 'hits'), 'Misses': ('drcachesim', 'misses'),
          'Compulsory misses': ('drcachesim', 'compulsory_misses'),
          'Invalidations': ('drcachesim', 'invalidations'),
          'Parent invalidations': ('drcachesim_coherence', 'parent_invalidations'),
          'Write invalidations': ('drcachesim_coherence', 'write_invalidations'),
          'Prefetch hits': ('drcachesim', 'prefetch_hits'),
          'Prefetch misses': ('drcachesim', 'prefetch_misses'),
          'Flushes': ('drcachesim', 'flushes'), 'Child hits': ('drcachesim', 'child_hits'),
          'Warmup hits': ('drcachesim_warmup', 'hits'),
          'Warmup misses': ('drcachesim_warmup', 'misses'),
          'Miss rate': ('drcachesim', 'miss_rate'), 'Local miss rate': ('drcachesim', 'miss_rate'),
          'Total miss rate': ('drcachesim', 'total_miss_rate')}
# under "Coherence stats" -> the key of the JSON's coherence object
COHERENCE = {'Total writes': 'writes', 'Invalidations': 'invalidations',
             'Writebacks': 'writebacks'}


def parse(text):
    """drcachesim's output -> ({cache: {field: text}}, cores printed); cache
    is L1I<n>, L1D<n>, LL or coherence"""
    out, cur, printed = {}, None, set()
    for line in text.splitlines():
        if re.match(r'Core #\d+ ', line):
            cur = None
            continue
        m = re.match(r'\s*(L1[ID]\d+|LL|Coherence stats)\b', line)
        if m:
            cur = 'coherence' if m.group(1) == 'Coherence stats' else m.group(1)
            out.setdefault(cur, {})
            if cur.startswith('L1'):
                printed.add(int(cur[3:]))
            continue
        m = re.match(r'\s+([A-Za-z ]+):\s+([0-9.,]+%?)\s*$', line)
        if m and cur:
            out[cur][m.group(1)] = m.group(2).replace(',', '')
    return out, printed


def levels(d):
    """cachet's levels by drcachesim's cache names"""
    return {('LL' if l['name'] == 'l2' else '%s%d' % (l['name'].upper(), l['core'])): l
            for l in d['levels']}


def figure(d, lv, cache, field):
    """cachet's value of one printed figure, None when it has none"""
    if cache == 'coherence':
        return d.get('coherence', {}).get(COHERENCE[field])
    obj, key = FIELDS[field]
    return lv.get(cache, {}).get(obj, {}).get(key)


def same(text, got):
    """a printed figure (a count, or a percentage with two decimals) is got"""
    if got is None:
        return False
    if text.endswith('%'):
        return '%.2f%%' % (100 * got) == text
    return got == int(text)
