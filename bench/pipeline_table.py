#!/usr/bin/env python3
"""Sums up a bench/pipeline_sweep.sh run: one markdown row per run directory (its summary.json).

    python3 bench/pipeline_table.py bench/out/pipeline-YYYY-MM-DD > bench/out/pipeline-YYYY-MM-DD/table.md
"""
import json
import os
import sys


def mib(b):
    return f"{b / 2**20:.1f}"


def main(root):
    rows = []
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name, "summary.json")
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            s = json.load(f)
        head, _, budget = s["config"].partition(" budget=")
        cfg = dict(kv.split("=", 1) for kv in head.split(" ") if "=" in kv)
        st = s["stages"]
        work = s["peak_rss_bytes"] - s["baseline_bytes"]
        model = s["predicted_peak_bytes"] - s["baseline_bytes"]
        rows.append(
            f"| [{name}](results/{os.path.basename(root)}/{name}/memory.svg) | {s['source']} | {cfg['pw']} | {cfg['jobs']} | "
            f"{cfg.get('split', 'yes')} | {budget} | {s['partitions']} | {s['wall_s']:.1f} | "
            f"{s['s_per_proof']:.2f} | {s['partitions_per_s']:.2f} | "
            f"{st['synthesis']['mean_s']:.2f} / {st['gpu']['mean_s']:.2f} / {st['g2']['mean_s']:.2f} | "
            f"{mib(work)} | {mib(s['books_peak_bytes'])} | {mib(model)} | "
            f"{s['books_peak_bytes'] / model if model else 0:.2f} | {work / model if model else 0:.2f} | "
            f"{mib(s['books_peak_by_tag']['g2'])} | {mib(s['peak_rss_bytes'])} | {mib(s['predicted_peak_bytes'])} | "
            f"{s['peak_rss_bytes'] / s['predicted_peak_bytes'] if s['predicted_peak_bytes'] else 0:.3f} | "
            f"{mib(s.get('worker_scratch_bytes', 0))} | {s['verdict']} |")
    print("| run | circuit | pw | jobs | split | budget | partitions | wall s | s/proof | partitions/s | "
          "stage means s (synth / gpu / g2) | peak RSS − baseline MiB | books peak MiB | "
          "model MiB (capped by budget) | books / model | RSS / model | g2 books peak MiB | "
          "peak RSS MiB | predicted peak MiB | measured / predicted peak | workers' scratch MiB | verdict |")
    print("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        print(r)


if __name__ == "__main__":
    main(sys.argv[1])
