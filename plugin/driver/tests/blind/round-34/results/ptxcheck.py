import re,sys
p=open('/tmp/r34-target/nvptx64-nvidia-cuda/release/verifier_corpus.ptx').read()
parts=re.split(r'(?=\.visible \.entry )',p)
pats=[('bulk',r'cp\.async\.bulk'),('init',r'mbarrier\.init'),('wait',r'mbarrier\.try_wait'),('arrive',r'mbarrier\.arrive\.shared'),('exp',r'expect_tx'),('bar',r'bar\.sync|barrier\.sync')]
for part in parts[1:]:
    name=re.match(r'\.visible \.entry (\w+)',part).group(1)
    if not name.startswith('r34_'): continue
    print("%-45s "%name + " ".join("%s=%d"%(k,len(re.findall(v,part))) for k,v in pats))
