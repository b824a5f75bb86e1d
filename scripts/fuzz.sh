#!/usr/bin/env bash
# Builds the fuzz preset (clang, libFuzzer + ASan + UBSan) and runs every target in tests/fuzz
# for SECONDS each (default 60) on its seed corpus, e.g. `scripts/fuzz.sh 600` for a longer
# session. New inputs go to build/fuzz/corpus/<target> (the committed seeds in
# tests/fuzz/corpus/<target> are only read); a failing input is saved as
# build/fuzz/artifacts/<target>/crash-* (or leak-*, oom-*, timeout-*), reproduced with
#   build/fuzz/tests/fuzz/<target> <that file>
# Exits 1 when any target failed, after running all of them. docs/TESTING.md has the details.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
case "$seconds" in
  '' | *[!0-9]*) echo "usage: scripts/fuzz.sh [seconds per target]" >&2; exit 2 ;;
esac

targets=(fuzz_read_png16 fuzz_read_raw16 fuzz_read_exr fuzz_read_npy fuzz_preset_file
  fuzz_preset_override)

cmake --preset fuzz >/dev/null
cmake --build --preset fuzz

failed=()
for t in "${targets[@]}"; do
  mkdir -p "build/fuzz/corpus/$t" "build/fuzz/artifacts/$t"
  dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=("-dict=tests/fuzz/$t.dict")
  echo "fuzz: $t for ${seconds}s" >&2
  # Inputs of up to 4 KiB. A single allocation above 512 MiB or a process above 2 GiB is a
  # failure (oom-*), as is an
  # input taking more than 10 s (timeout-*); leaks are failures (ASan's leak check).
  if ! "build/fuzz/tests/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 \
      -malloc_limit_mb=512 -timeout=10 -max_len=4096 -print_final_stats=1 \
      -artifact_prefix="build/fuzz/artifacts/$t/" "${dict[@]}" \
      "build/fuzz/corpus/$t" "tests/fuzz/corpus/$t" > "build/fuzz/artifacts/$t.log" 2>&1; then
    failed+=("$t")
    tail -n 60 "build/fuzz/artifacts/$t.log" >&2
  fi
  grep -E '^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)' \
    "build/fuzz/artifacts/$t.log" >&2 || true
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: FAILED: ${failed[*]} (inputs in build/fuzz/artifacts/)" >&2
  exit 1
fi
echo "fuzz: all ${#targets[@]} targets ran ${seconds}s each without a failure" >&2
