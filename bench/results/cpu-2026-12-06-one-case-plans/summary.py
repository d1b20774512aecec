import json, collections
d = "./"
rows = collections.defaultdict(dict)
for l in open(d + 'uai.tsv'):
    f = l.rstrip('\n').split('\t')
    b, inst, dev = f[0], f[1], f[2]
    v = (float(f[5]), float(f[6]), float(f[7]))
    old = "./"
    rows[inst][(b, dev)] = tuple(min(a, c) for a, c in zip(old, v)) if old else v
py = collections.defaultdict(lambda: collections.defaultdict(list))
for l in open(d + 'pyagrum.jsonl'):
    l = l.strip()
    if not l: continue
    j = json.loads(l)
    if 'mar_ms' in j: py[j['instance'][:-4]][j['threads']].append(j['mar_ms'])
print('| instance | threads | before PR / MAR / MPE ms | after PR / MAR / MPE ms | pyAgrum MAR ms | before × pyAgrum | after × pyAgrum |')
print('|---|---|---:|---:|---:|---:|---:|')
for inst, r in rows.items():
    for dev, t in (('cpu1', 1), ('cpu', 2)):
        b, n = r.get(('base', dev)), r.get(('new', dev))
        p = py[inst].get(t) or []
        pm = min(p) if p else None
        fmt = lambda x: ' / '.join('%.1f' % v for v in x)
        rb = '%.1f×' % (pm / b[1]) if pm else '-'
        rn = '%.1f×' % (pm / n[1]) if pm else '-'
        print('| %s | %s | %s | %s | %s | %s | %s |' % (inst, '1' if t == 1 else 'all (2)', fmt(b), fmt(n), ('%.0f' % pm) if pm else 'out of memory (8 GiB)' if inst=='Promedus_20' else '-', rb, rn))
print()
for name in ('base', 'new'):
    pass
cli = {}
for name in ('base', 'new'):
    for l in open(d + 'cli_%s.jsonl' % name):
        j = json.loads(l)
        e = cli.setdefault(j['network'], {}).setdefault(name, {'ms': [], 'py': []})
        e['ms'].append(j['ms'])
        if j['pyagrum']:
            e['py'].append(j['pyagrum']['load_and_infer_ms'])
print('| network | before ms | after ms | pyAgrum load+infer ms | after / pyAgrum |')
print('|---|---:|---:|---:|---:|')
for net, v in cli.items():
    b, n = v.get('base'), v.get('new')
    if not b or not n: continue
    pm = min(b['py'] + n['py'])
    print('| %s | %.1f | %.1f | %.1f | %.2f |' % (net, min(b['ms']), min(n['ms']), pm, min(n['ms']) / pm))
