Z=build/zbddc; B=../shared/benchmarks/bn; P=bench/peers/pyagrum_lazy.py
for n in water mildew barley pathfinder; do
  $Z sample $B/$n.bif --cases 2000 --seed 1 -o $n.evid --quiet
  t0=$(date +%s.%N); $Z run $B/$n.bif --task mar --evidence $n.evid --device cpu --json > $n.json 2> $n.err; rc=$?; t1=$(date +%s.%N)
  python3 -c "
import json,sys; d=json.load(open('$n.json')); f=d[0] if isinstance(d,list) else d
print(json.dumps({'network':'$n','rc':$rc,'wall_s':round($t1-$t0,2),'route':f.get('route'),'time_ms':f.get('time_ms'),'device':f.get('device')}))" >> ours.jsonl 2>>err.txt
  python3 $P $B/$n.bif $n.evid --threads 0 --budget-s 45 | sed "s/^{/{\"network\": \"$n\", /" >> pyagrum.jsonl
  uptime >> load.txt
done
