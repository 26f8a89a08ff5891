#!/usr/bin/env bash
# The GPU proof run (on a machine with CuPy and a CUDA device), from the repository root:
#   OUT=some/dir bash benchmarks/device_run.sh [tests|cli|targets|classes]...   (default: the first three)
# tests: every gpu-marked test (GPU modules' doctests included); cli: each GPU strategy through the real CLI;
# targets: `mazeroute bench --suite targets`; classes: `mazeroute bench --suite classes` (issue 14).
# Logs and CSVs go to $OUT.
set -o pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH="${PYTHONPATH:-.}"
OUT="${OUT:-outputs/device}"
mkdir -p "$OUT"
PY="${PYTHON:-python3}"
WORK="${WORK:-$(mktemp -d)}"   # CLI outputs (many files) stay out of $OUT
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(tests cli targets)
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
    targets)
        $PY -m mazeroute bench --suite targets --repeats 5 --max-seconds 4 -o "$OUT/targets" \
            2>&1 | tee "$OUT/targets.log" || status=1 ;;
    classes)
        $PY -m mazeroute bench --suite classes --repeats 5 --max-seconds 4 \
            --log "$OUT/classes.log" -o "$OUT/classes" || status=1 ;;
    *) echo "unknown step $step (tests, cli, targets, classes)"; status=2 ;;
    esac
done
exit $status
