#!/usr/bin/env python3
# ptxas -v summary of the MSM kernels (msm_impl.cuh's msm_detail namespace):
#   python3 bench/ptxas_summary.py PTXAS_OUTPUT
# One line per kernel: registers, stack frame, spill store/load bytes, and the spill bytes of the
# called functions (the __noinline__ field product) that ptxas lists after each kernel.
# PTXAS_OUTPUT: nvcc's stderr with -Xptxas -v for one of src/cuda/msm_*.cu.
import re,sys
txt=open(sys.argv[1]).read().splitlines()
names=['run_len_keys_kernel','run_bounds_kernel','dense_runs_kernel','chunk_len_keys_kernel','bucket_kernel_bounded','bucket_kernel','chunk_kernel','chunk_tree_kernel','chunk_store_kernel','window_kernel','halve_kernel','ones_kernel','digits_kernel','classify_kernel','find_big_kernel','scatter_tail_kernel']
rows={};cur=None;fn=None
for l in txt:
    m=re.search(r"Compiling entry function '([^']+)'",l)
    if m:
        cur=m.group(1); fn=None
        if 'msm_detail' in cur:
            name=next((n for n in names if n in cur),cur[:50]); rows[cur]=[name,None,None,[]]
        continue
    if cur not in rows: continue
    m=re.search(r"Function properties for (\S+)",l)
    if m: fn=m.group(1); continue
    if 'stack frame' in l:
        nums=re.findall(r"(\d+) bytes",l)
        if fn==cur: rows[cur][2]=nums
        else:
            short=re.search(r"(mul\w*|sqr\w*)E",fn); rows[cur][3].append(((short.group(1) if short else fn[-30:]),nums))
        continue
    m=re.search(r"Used (\d+) registers",l)
    if m: rows[cur][1]=m.group(1)
out=[]
for k,(name,regs,p,cs) in rows.items():
    c=' '.join('%s %s/%s'%(f,n[1],n[2]) for f,n in cs)
    out.append("%-20s regs %3s  stack %4s  spill st/ld %5s/%-5s %s"%(name,regs,p[0],p[1],p[2],('| callee '+c) if c else ''))
for r in sorted(out): print(r)
