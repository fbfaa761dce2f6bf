import re,sys
p=open('/tmp/r34-target/nvptx64-nvidia-cuda/release/verifier_corpus.ptx').read()
parts=re.split(r'(?=\.visible \.entry )',p)
for part in parts[1:]:
    if re.match(r'\.visible \.entry '+sys.argv[1]+r'\(',part): print(part)
