#!/usr/bin/env bash
# One device call: build HEAD and the previous commit, GPU tests, leapfrog benchmark both builds, CLI run timing.
set -uo pipefail
export DECGPE_GIT_COMMIT=${HEAD_COMMIT}
S=$OUT/summary.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $S
( cmake --preset cuda -DDECGPE_WERROR=ON >/dev/null && cmake --build --preset cuda -j 16 --target decgpe ) > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
( cd .base && ln -sfn $PWD/../.deps .deps && DECGPE_GIT_COMMIT=636d12d cmake --preset cuda >/dev/null && DECGPE_GIT_COMMIT=636d12d cmake --build --preset cuda -j 16 --target decgpe ) > /tmp/build-base.log 2>&1 || { tail -30 /tmp/build-base.log; exit 1; }
echo "== CLI: 2000 leapfrog steps of a 16.6M-cell BCC case (decgpe run, wall_seconds from the results)" | tee -a $S
printf 'lattice = "bcc"\nh = 0.1\nstructures = [112, 112, 110]\ng = 300.0\n[time]\ndt_fraction = 0.5\nsteps = 2000\ndiagnostics_every = 100\n[initial]\nkappa = 1\n' > /tmp/cli.toml
for round in 1 2; do
  .base/build/cuda/cli/decgpe run /tmp/cli.toml --backend cuda --quiet --out /tmp/base-$round.h5 --no-state; rm -f /tmp/head-$round.h5
  build/cuda/cli/decgpe run /tmp/cli.toml --backend cuda --quiet --force --out /tmp/head-$round.h5 --no-state
  python3 -c "
import h5py
for t in ['base','head']:
  f=h5py.File('/tmp/%s-$round.h5'%t); print(t, 'round $round', 'wall_seconds %.3f'%f.attrs['wall_seconds'], 'cells', f.attrs['cells'])
" | tee -a $S
done
echo "== restart on the GPU via the CLI: SIGTERM mid-run, resume, compare" | tee -a $S
sed 's/steps = 2000/steps = 40000/' /tmp/cli.toml > /tmp/sig.toml
build/cuda/cli/decgpe run /tmp/sig.toml --backend cuda --quiet --force --out /tmp/sig.h5 & pid=$!; sleep 8; kill -TERM $pid; wait $pid; echo "rc=$?" | tee -a $S
build/cuda/cli/decgpe run /tmp/sig.toml --backend cuda --quiet --force --out /tmp/sig.h5 --restart /tmp/sig.checkpoint.h5 2>&1 | tee -a $S
build/cuda/cli/decgpe run /tmp/sig.toml --backend cuda --quiet --force --out /tmp/whole.h5
python3 -c "
import h5py, numpy as np
a=h5py.File('/tmp/whole.h5'); b=h5py.File('/tmp/sig.h5')
print('restarted from', b.attrs['restarted_from'], 'bitwise state:', all(np.array_equal(a['state/'+k][()], b['state/'+k][()]) for k in a['state']), 'series:', np.array_equal(a['diagnostics/energy'][()], b['diagnostics/energy'][()]))
" | tee -a $S
