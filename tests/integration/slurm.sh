# A Slurm of one machine for a test (sourced): munged, slurmctld and slurmd
# of Debian's packages, their configuration, key, state and logs in a
# temporary directory, on loopback ports of their own, started by
# slurm_start and stopped by PID by slurm_stop. SLURM_CONF points the
# clients (sbatch, squeue, scancel) at it. Needs root.

# slurm_start DIR: the cluster up, its one node idle; fails the test if not
slurm_start() {
	local d=$1 host p
	host=$(hostname -s)
	for p in 16817 16818; do
		ss -Hltn "sport = :$p" | grep . >/dev/null && fail "port $p is in use: another Slurm?"
	done
	mkdir -p "$d/state" "$d/spool"
	chmod 700 "$d"
	head -c 1024 /dev/urandom >"$d/munge.key"
	chmod 400 "$d/munge.key"
	munged -F --force --key-file="$d/munge.key" --socket="$d/munge.sock" \
		--pid-file="$d/munged.pid" --log-file="$d/munged.log" \
		--seed-file="$d/munged.seed" >"$d/munged.out" 2>&1 &
	echo $! >"$d/munged.bg"
	cat >"$d/slurm.conf" <<EOF
# a one-machine Slurm for steerlab's tests (tests/integration/slurm.sh)
ClusterName=steerlab-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$d/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
InactiveLimit=0
MinJobAge=300
KillWait=5
Waittime=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$d/slurm.conf
	wait_until 10 test -S "$d/munge.sock" || { cat "$d/munged.out"; fail "munged did not start"; }
	slurmctld -D -f "$d/slurm.conf" >"$d/slurmctld.out" 2>&1 &
	echo $! >"$d/slurmctld.bg"
	slurmd -D -N "$host" -f "$d/slurm.conf" >"$d/slurmd.out" 2>&1 &
	echo $! >"$d/slurmd.bg"
	slurm_idle() { sinfo -h -N -o '%T' 2>/dev/null | grep -qx idle; }
	wait_until 30 slurm_idle || {
		tail -5 "$d"/slurmctld.log "$d"/slurmd.log
		fail "the test's Slurm node was not idle within 30 s"
	}
	echo "ok: a one-machine Slurm is up (sinfo: $(sinfo -h -o '%P %a %D %T'))"
}

# slurm_stop DIR: its daemons stopped by PID, waited for
slurm_stop() {
	local d=$1 n pid
	for n in slurmd slurmctld munged; do
		[ -s "$d/$n.bg" ] || continue
		pid=$(cat "$d/$n.bg")
		kill "$pid" 2>/dev/null || continue
		wait_until 10 sh -c "! kill -0 $pid 2>/dev/null" || kill -KILL "$pid" 2>/dev/null
	done
	return 0
}
