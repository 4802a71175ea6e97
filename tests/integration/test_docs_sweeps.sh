#!/usr/bin/env bash
# docs/sweeps.md's sweeps run (docs.sh), each of its first and last values:
# the TTLs of 30 s to 15 min plotted on a logarithmic axis.
# about 80 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh
. tests/integration/docs.sh

docs_run docs/sweeps.md
docs_sweep_axis 900 log
docs_no_lab_left compare
