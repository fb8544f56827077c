#!/usr/bin/env bash
# Run each test file alone, in its own pytest process (shuffled by pytest-randomly, like the
# whole suite): shows that no test needs another file to have run first. Slower than
# `make test` (every file pays its own start-up and fixtures): run on demand, not in CI.
# Usage: tests/run_each_file.sh [extra pytest arguments, e.g. -p no:randomly]
set -uo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
log=$(mktemp -d "${TMPDIR:-/tmp}/sproutsdb-each.XXXXXX")
failed=()
for file in tests/test_*.py; do
    start=$SECONDS
    "$python" -m pytest -q -m "not slow" -p no:cacheprovider "$file" "$@" \
        >"$log/$(basename "$file").log" 2>&1
    status=$?
    # 5: every test of the file is marked slow, none selected
    if [ "$status" -eq 0 ] || [ "$status" -eq 5 ]; then
        printf 'ok    %4ds  %s\n' $((SECONDS - start)) "$file"
    else
        printf 'FAIL  %4ds  %s (exit %d)\n' $((SECONDS - start)) "$file" "$status"
        tail -n 30 "$log/$(basename "$file").log"
        failed+=("$file")
    fi
done
rm -rf "$log"
if [ "${#failed[@]}" -gt 0 ]; then
    echo "failed alone: ${failed[*]}" >&2
    exit 1
fi
echo "every test file passes alone"
