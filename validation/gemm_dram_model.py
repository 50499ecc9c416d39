#!/usr/bin/env python3
"""A wave-footprint model of a library GEMM's DRAM reads, judged against ncu
(measurements/2026-12-06-h100-gemm-library/gemm_dram.csv: torch.mm bf16 on an
H100, cuBLAS's nvjet kernels). Each wave of one CTA per SM reads the panels of
the distinct tile rows and columns it covers, once (the L2 shares them within
the wave); tiles are visited in groups of g tile rows along the other
dimension (the raster swizzle). Not in ridge yet (issue 34): this prints how
far each variant sits from ncu, the evidence for the C model to come.
usage: validation/gemm_dram_model.py"""
import csv, math, re, statistics
rows=list(csv.DictReader(open(__import__('os').path.join(__import__('os').path.dirname(__file__), '..', 'measurements', '2026-12-06-h100-gemm-library', 'gemm_dram.csv'))))
e=2; W=132
def model(cm,cn,k,tm,tn,ras,g):
    mt, nt = math.ceil(cm/tm), math.ceil(cn/tn)
    # tile order: groups of g along the minor dim
    order=[]
    if ras=='h':   # groups of g m-tiles, walk along n
        for m0 in range(0,mt,g):
            for j in range(nt):
                for i in range(m0,min(m0+g,mt)): order.append((i,j))
    else:          # groups of g n-tiles, walk along m
        for n0 in range(0,nt,g):
            for i in range(mt):
                for j in range(n0,min(n0+g,nt)): order.append((i,j))
    read=0
    for w in range(0,len(order),W):
        wave=order[w:w+W]
        ms=len({i for i,_ in wave}); ns=len({j for _,j in wave})
        read+= (ms*min(tm,cm)+ns*min(tn,cn))*k*e
    return read
def run(fixed=None, g=3):
    errs=[]
    for r in rows:
        m,n,k=int(r['m']),int(r['n']),int(r['k'])
        t=re.search(r'_(\d+)x(\d+)_64x\d+_(\d)x(\d)_(h|v)_',r['kernel'])
        tm,tn,ras=int(t[1]),int(t[2]),t[5]
        if fixed: tm,tn,ras=fixed
        cm,cn=n,m
        comp=(cm+cn)*k*e
        pred=max(model(cm,cn,k,tm,tn,ras,g), comp)
        meas=float(r['dram_read_bytes'])
        errs.append(pred/meas-1)
    return errs
for g in (2,3,4,6,8):
    e1=run(None,g); print('own tile g',g,'median |err| %.1f%%'%(100*statistics.median(map(abs,e1))),'max %.0f%%'%(100*max(map(abs,e1))), ' '.join('%+.0f'%(100*x) for x in e1))
for g in (2,3,4,8):
    e1=run((256,128,'h'),g); print('256x128h g',g,'median %.1f%%'%(100*statistics.median(map(abs,e1))),' '.join('%+.0f'%(100*x) for x in e1))
print('--- with L2 overflow factor')
L2=50e6
def model2(cm,cn,k,tm,tn,ras,g,beta):
    mt, nt = math.ceil(cm/tm), math.ceil(cn/tn)
    order=[]
    for m0 in range(0,mt,g):
        for j in range(nt):
            for i in range(m0,min(m0+g,mt)): order.append((i,j))
    read=0
    for w in range(0,len(order),W):
        wave=order[w:w+W]
        ms=len({i for i,_ in wave}); ns=len({j for _,j in wave})
        F=(ms*min(tm,cm)+ns*min(tn,cn))*k*e
        read+= F*max(1,F/L2)**beta
    return read
def run2(g,beta,sel):
    errs=[]
    for idx,r in enumerate(rows):
        if sel is not None and idx%2!=sel: continue
        m,n,k=int(r['m']),int(r['n']),int(r['k'])
        cm,cn=n,m
        comp=(cm+cn)*k*e
        pred=max(model2(cm,cn,k,256,128,'h',g,beta), comp)
        errs.append(pred/float(r['dram_read_bytes'])-1)
    return errs
best=None
for g in (4,8,16):
    for beta in (0,0.1,0.2,0.3,0.4,0.5):
        e1=run2(g,beta,0); med=statistics.median(map(abs,e1))
        if best is None or med<best[0]: best=(med,g,beta)
print('fit on even rows: g %d beta %.1f median %.1f%%'%(best[1],best[2],100*best[0]))
e2=run2(best[1],best[2],1); print('held-out odd rows: median %.1f%% max %.0f%%'%(100*statistics.median(map(abs,e2)),100*max(map(abs,e2))), ' '.join('%+.0f'%(100*x) for x in e2))
eall=run2(best[1],best[2],None); print('all:', ' '.join('%+.0f'%(100*x) for x in eall))
