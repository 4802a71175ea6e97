#!/usr/bin/env bash
# The commands of docs/*.md but sweeps.md (docs.sh, test_docs_sweeps.sh)
# run, and their outputs compared in shape: the topology guide's labs,
# the clocks' example run at its full length, the agents' captures.
# about 70 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/docs.sh

docs=()
for f in docs/*.md; do [ "$f" = docs/sweeps.md ] || docs+=("$f"); done
# docs/analysis.md's Python is the system's, as on a fresh Debian 12 (make
# deps installs python3), not a shim earlier in the PATH
PATH=/usr/bin:$PATH docs_run "${docs[@]}"
docs_no_lab_left compare anycast bgp ck2
