set -u
out=$1
tar -C .gpu -xJf .gpu/bin.tar.xz
libs=$(mktemp -d); tar -C $libs -xJf .gpu/libs.tar.xz
export LD_LIBRARY_PATH=$libs:/usr/local/cuda/lib64
run() { # label, binary, leaves, env
  local label=$1 bin=$2 leaves=$3; shift 3
  /usr/bin/time -f "%e s wall, %M KiB max RSS" env "$@" timeout 150 $bin --beyond-device --leaves $leaves --budget-gib 16 > $out/$label.txt 2>&1
  echo "$label exit $?: $(grep -h 'solved out of core\|wall' $out/$label.txt | tr '\n' ' ')" >> $out/summary.txt
}
cat /sys/kernel/mm/transparent_hugepage/defrag > $out/summary.txt
run new88-thp .gpu/bench/wcsp_out_of_core 11,2x30 X=1
run new88-4k .gpu/bench/wcsp_out_of_core 11,2x30 ZBDDC_HUGE_PAGES=0
run new88-thp2 .gpu/bench/wcsp_out_of_core 11,2x30 X=1
run new44-thp .gpu/bench/wcsp_out_of_core 11,2x29 X=1
run new44-4k .gpu/bench/wcsp_out_of_core 11,2x29 ZBDDC_HUGE_PAGES=0
run old44 .gpu/old/wcsp_out_of_core 11,2x29 X=1
cat $out/summary.txt
