for round in 1 2; do for b in base new; do
  exe=build/zbddc; [ $b = base ] && exe=base/build/zbddc
  mkdir -p /tmp/rt-$b-$round
  ZBDDC=$exe ROUTE_REPEAT=7 ROUTE_CLOCK=cpu ROUTE_CELL_S=60 ROUTE_CASES=2000 ROUTE_TASKS="pr mar" ROUTE_PEER=0 bash bench/route_table.sh /tmp/rt-$b-$round ../shared/benchmarks/bn/asia.bif ../shared/benchmarks/bn/cancer.bif ../shared/benchmarks/bn/earthquake.bif ../shared/benchmarks/bn/sachs.bif ../shared/benchmarks/bn/survey.bif ../shared/benchmarks/bn/insurance.bif ../shared/benchmarks/bn/alarm.bif ../shared/benchmarks/bn/water.bif > /tmp/rt-$b-$round.log 2>&1
done; done
