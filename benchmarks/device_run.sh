#!/usr/bin/env bash
# The GPU proof run (on a machine with CuPy and a CUDA device), from the repository root:
#   OUT=some/dir bash benchmarks/device_run.sh [tests|cli|table|classes]...   (default: the first three)
# tests: every gpu-marked test (GPU modules' doctests included); cli: each GPU strategy through the real CLI;
# table: `mazeroute bench` (every engine x layout class at 4096^2); classes: `mazeroute bench --suite classes`.
# What the figures were meant to reach: docs/benchmarks.md.
# Logs and CSVs go to $OUT.
set -o pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH="${PYTHONPATH:-.}"
OUT="${OUT:-outputs/device}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
WORK="${WORK:-$(mktemp -d)}"   # CLI outputs (many files) stay out of $OUT
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests cli table)
status=0
for step in "${steps[@]}"; do
    case "$step" in
    tests)
        $PY -m pytest -q -p no:cacheprovider -m gpu tests/ mazeroute/ 2>&1 | tail -4 | tee "$OUT/tests.log" \
            || status=1 ;;
    cli)
        {
            for s in $($PY -c "from mazeroute.engines import strategies; print(*strategies('gpu'))"); do
                $PY -m mazeroute route layouts/multinet.yaml --mode sequential --backend gpu --strategy "$s" \
                    -o "$WORK/$s" -q && $PY -m mazeroute check layouts/multinet.yaml \
                    --routes "$WORK/$s/routes.json" --sequential | tail -1 || status=1
            done
            $PY -m mazeroute route layouts/large_2048.yaml --backend auto -o "$WORK/large" \
                | tail -3 || status=1
            $PY -m mazeroute wavefront layouts/fig15_5.yaml --backend gpu -o "$WORK/wave.png" \
                || status=1
            $PY -m mazeroute batch layouts -o "$WORK/batch" --no-png --backend gpu \
                || status=1
        } 2>&1 | tee "$OUT/cli.log" ;;
    table)
        $PY -m mazeroute bench --suite table --size 4096 --repeats 5 --max-seconds 4 \
            -o "$OUT/table" 2>&1 | tee "$OUT/table.log" || status=1 ;;
    classes)
        $PY -m mazeroute bench --suite classes --repeats 5 --max-seconds 4 \
            --log "$OUT/classes.log" -o "$OUT/classes" || status=1 ;;
    *) echo "unknown step $step (tests, cli, table, classes)"; status=2 ;;
    esac
done
exit $status
