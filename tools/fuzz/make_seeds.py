#!/usr/bin/env python3
"""Builds larger seed sets for long fuzz runs (run.sh) from the repository's own fixtures.

    tools/fuzz/make_seeds.py [OUT_DIR]     # default /tmp/knobsim-fuzz/seeds

The short CTest runs use the small checked-in corpus/ instead (README.md).

Writes OUT_DIR/{kube,prom,scenario,knobs,trace}: single objects cut from the JSON exports (as
JSON and as YAML), small Lists and multi-document YAML of them, the Prometheus fixtures and a
few 40-sample series of the export20 metrics in the three accepted shapes, every scenario
fixture and runnable scenario, hand-written knobs files, and the first 30 lines of each openb
trace CSV (from ../shared/data when present). Every seed stays under the 64 KiB -max_len.
Needs PyYAML (python3-yaml).
"""
import glob
import json
import os
import random
import shutil
import sys

import yaml

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))
OUT = sys.argv[1] if len(sys.argv) > 1 else '/tmp/knobsim-fuzz/seeds'
MAX = 65536


def put(kind, name, text):
    if len(text.encode()) < MAX:
        with open(os.path.join(OUT, kind, name), 'w') as f:
            f.write(text)


def main():
    for d in ('kube', 'prom', 'scenario', 'knobs', 'trace'):
        os.makedirs(os.path.join(OUT, d), exist_ok=True)
    os.chdir(ROOT)
    rng = random.Random(1)

    # kube: up to three objects of each kind from each export, as JSON and as YAML.
    n = 0
    for f in ['sim/io/testdata/kube/export.json', 'sim/io/testdata/kube/ack-cluster.json',
              'tools/knobsim/testdata/export20/export.json']:
        items = json.load(open(f))['items']
        by_kind = {}
        for it in items:
            by_kind.setdefault(it.get('kind'), []).append(it)
        for its in by_kind.values():
            for it in its[:3]:
                put('kube', f'obj{n}.json', json.dumps(it, indent=2))
                put('kube', f'obj{n}.yaml', yaml.safe_dump(it))
                n += 1
        sample = rng.sample(items, min(8, len(items)))
        put('kube', f'list{n}.json', json.dumps({'apiVersion': 'v1', 'kind': 'List', 'items': sample}))
        put('kube', f'multi{n}.yaml', yaml.safe_dump_all(sample[:4]))
        n += 1
    for f in ['sim/io/testdata/kube/pending-pods.yaml', 'tools/knobsim/testdata/small-pods.yaml',
              'tools/knobsim/testdata/small-cluster.yaml']:
        shutil.copy(f, os.path.join(OUT, 'kube'))

    # prom: the fixtures, and two series of each export20 metric cut to 40 samples.
    for f in glob.glob('sim/io/testdata/prom/*.json'):
        shutil.copy(f, os.path.join(OUT, 'prom'))
    for f in sorted(glob.glob('tools/knobsim/testdata/export20/prom/*.json')):
        base = os.path.basename(f)[:-5]
        result = json.load(open(f))['data']['result']
        for k, s in enumerate(result[:2]):
            s = dict(s, values=s['values'][:40])
            put('prom', f'{base}{k}.json', json.dumps(
                {'status': 'success', 'data': {'resultType': 'matrix', 'result': [s]}},
                separators=(',', ':')))
        s = dict(result[0], values=result[0]['values'][:10])
        put('prom', f'{base}_data.json', json.dumps({'resultType': 'matrix', 'result': [s]}, indent=1))
        put('prom', f'{base}_result.json', json.dumps([s]))

    # scenario: every fixture and runnable scenario.
    for f in glob.glob('sim/io/testdata/*.yaml') + glob.glob('scenarios/*.yaml'):
        if os.path.getsize(f) < MAX:
            shutil.copy(f, os.path.join(OUT, 'scenario'))

    # knobs: against the fixed scenario of knobs_fuzz.cpp.
    put('knobs', 'list.yaml', 'variants:\n  - name: upgrade\n    description: hard isolation first\n'
        '    knobs: [isolation=hard]\n  - name: fix-then-upgrade\n'
        '    knobs: ["quota:asr=peak+10%", isolation=hard]\n')
    put('knobs', 'map.yaml', 'variants:\n  p3: [policy=3]\n  spread-asr: {policy: 1, "spread:asr": hostname:1}\n'
        '  described:\n    description: d\n    knobs: {replicas:asr: 4}\n')
    put('knobs', 'all.yaml', 'variants:\n  - name: everything\n    knobs:\n' + ''.join(
        f'      - "{k}"\n' for k in [
            'policy=2', 'max_inst=4', 'switch_overhead=0.1', 'placement:gpu-a10=spread',
            'isolation:*=hard', 'nodes:gpu-a10=4', 'quota:*=peak+2', 'quota:prod/llm=peak+10%',
            'spread:asr=zone:1:ScheduleAnyway', 'spread:asr=hostname:2', 'spread:llm=none',
            'replicas:web=3', 'traffic:asr=1.5', 'traffic=2', 'gpu_core:asr=50']))
    put('knobs', 'dup.yaml', 'variants:\n  - name: a\n    knobs: [policy=1]\n  - name: a\n    knobs: [policy=2]\n')
    put('knobs', 'open.yaml', 'variants: [\n')

    # trace: the header and 29 rows of each openb CSV.
    for f in glob.glob(os.path.join(ROOT, '..', 'shared', 'data', 'alibaba-gpu-v2023', '*.csv')):
        lines = open(f).read().splitlines()
        put('trace', os.path.basename(f), '\n'.join(lines[:30]) + '\n')


if __name__ == '__main__':
    main()
