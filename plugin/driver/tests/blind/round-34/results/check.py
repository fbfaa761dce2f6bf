import tomllib,re,glob,collections
root='/work/blind34/round-34'
exp=tomllib.load(open(root+'/expected.toml','rb'))
ks=exp['kernel']
names=[k['name'] for k in ks]
src={}
for f in sorted(glob.glob(root+'/src/*.rs')):
    for m in re.finditer(r'#\[unsafe\(no_mangle\)\]\s*pub unsafe extern "ptx-kernel" fn (\w+)\(input: \*const f32, tiles: u32, out: \*mut f32\)',open(f).read()):
        src.setdefault(m.group(1),[]).append(f)
allfns=re.findall(r'extern "ptx-kernel" fn (\w+)',''.join(open(f).read() for f in glob.glob(root+'/src/*.rs')))
ptx=open('/tmp/r34-target/nvptx64-nvidia-cuda/release/verifier_corpus.ptx').read()
pe=re.findall(r'\.entry (r34_\w+)\(',ptx)
model=open('/work/blind34/MODEL.md').read()
rulenames=set(re.findall(r'^### `([a-z0-9-]+)`',model,re.M))
print('rules in MODEL:',sorted(rulenames))
errs=[]
for label,L in [('expected',names),('source',allfns),('ptx',pe)]:
    d=[n for n,c in collections.Counter(L).items() if c>1]
    if d: errs.append(f'duplicates in {label}: {d}')
    print(label,len(L),len(set(L)))
if not (set(names)==set(src)==set(pe)==set(allfns)): errs.append('name sets differ: %s'%(set(names)^set(pe)|set(names)^set(src)))
keys={'name','class','expect','hazard','rules','why'}
for k in ks:
    if set(k)!=keys: errs.append(f"{k['name']}: keys {sorted(k)}")
    mod=k['name'].split('_')[1]
    bad='_bad_' in k['name']
    if bad:
        if not (k['class']=='broken' and k['expect']=='reject' and k['hazard'] in ('hang','fault','wrong-result','race') and k['rules']): errs.append(f"{k['name']}: broken fields")
    else:
        if not (k['class']=='correct' and k['expect']=='accept' and k['hazard']=='none' and k['rules']==[]): errs.append(f"{k['name']}: correct fields")
    for r in k['rules']:
        if r not in rulenames: errs.append(f"{k['name']}: unknown rule {r}")
    if not k['name'].startswith('r34_'): errs.append(k['name'])
    if src.get(k['name'],[''])[0].split('/')[-1][:-3]!=mod: errs.append(f"{k['name']}: module file mismatch")
c=collections.Counter((k['name'].split('_')[1],k['class']) for k in ks)
for m in sorted({k['name'].split('_')[1] for k in ks}): print(m,'correct',c[(m,'correct')],'broken',c[(m,'broken')])
print('hazards',collections.Counter(k['hazard'] for k in ks if k['class']=='broken'))
# module comments grouping
txt=open(root+'/expected.toml').read()
order=[]
cur=None
for line in txt.splitlines():
    m=re.match(r'# ---- module (\w+) ----',line)
    if m: cur=m.group(1)
    m=re.match(r'name = "(\w+)"',line)
    if m and m.group(1).split('_')[1]!=cur: errs.append(f'{m.group(1)} not under its module comment')
print('ERRORS:',errs if errs else 'none')
