import sys, statistics, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 6: continue
    d[f[0]].append((float(f[2]), float(f[3]) + float(f[4]), float(f[4]), float(f[5]) / 1024, float(f[7])))
for v, rows in d.items():
    col = lambda i: statistics.median(r[i] for r in rows)
    print(f"{v:10s} runs {len(rows)}  wall {col(0):.3f}  cpu {col(1):.3f}  sys {col(2):.3f}  rss {col(3):.1f} MiB  load {min(r[4] for r in rows):.2f}-{max(r[4] for r in rows):.2f}")
