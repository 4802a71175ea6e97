#!/usr/bin/env bash
# The timeline's DNS changes on PowerDNS and gdnsd (docs/authorities.md,
# "DNS changes"; tests/integration/data/authority-changes.ini): their zone
# files rewritten as authd would hold them, then pdns_control
# bind-reload-now / gdnsdctl reload-zones; a set-weight on gdnsd, whose
# weights are its configuration's, by a new instance (gdnsd -R start).
#   1. PowerDNS: a valid run; each change an event_applied with the zone's
#      next serial and an authority_changed; on ns's link (tshark): the
#      first answer for www.lab.example after the set-ttl has TTL 1 (4
#      before), new.lab.example NXDOMAIN before the add-record and its
#      address after, w.lab.example never a after the drain (a before it);
#      the weights' table sees the change.
#   2. gdnsd (ns.impl = gdnsd): the same TTL and record on its link, the
#      same serials; the drain by a replacement that took the old one's
#      sockets over (its log), whose exit is expected (the run is valid).
#   3. refused at check, naming the [event]'s line: a remove-record of a
#      record that is not there.
# about 25 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-authchg
lab_guard $lab
command -v tshark >/dev/null || fail "no tshark (sudo make deps)"
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'' EXIT
ini=tests/integration/data/authority-changes.ini

# applied DIR EVENT SERIAL: EVENT's event_applied and authority_changed
# carry SERIAL; prints the authority_changed's t
applied() {
	local dir=$1 ev=$2 serial=$3 t
	[ "$(json "$dir/lab.events.jsonl" "select(.event == \"event_applied\" and .name == \"$ev\") | .serial")" = "$serial" ] ||
		fail "event_applied of $ev does not carry serial $serial"
	t=$(json "$dir/lab.events.jsonl" "select(.event == \"authority_changed\" and .id == \"$ev\" and .serial == $serial) | .t")
	[ -n "$t" ] || fail "no authority_changed of $ev with serial $serial"
	echo "$t"
}

# answers DIR: ns's responses on its link, "T_NS NAME RCODE TTL ADDRESS"
answers() {
	tshark -r "$1/capture-dns-ns.pcap" -Y 'dns.flags.response == 1' \
		-T fields -e frame.time_epoch -e dns.qry.name -e dns.flags.rcode -e dns.resp.ttl -e dns.a 2>/dev/null |
		awk '{ split($1, p, "."); print p[1] substr(p[2] "000000000", 1, 9), $2, $3, $4, $5 }'
}

# drained WHO DIR: the set-weight of a to 0 on the wire and in the weights
drained() {
	local who=$1 dir=$2 t_drain
	t_drain=$(applied "$dir" drain 2024010104)
	assert_ge "$(awk -v t="$t_drain" '$2 == "w.lab.example" && $1 < t && $5 == "198.19.1.1"' "$dir/answers" | wc -l)" 1 \
		"$who: answers of a for w.lab.example before the drain"
	assert_eq "$(awk -v t="$t_drain" '$2 == "w.lab.example" && $1 > t && $5 == "198.19.1.1"' "$dir/answers" | wc -l)" 0 \
		"$who: answers of a for w.lab.example after the drain"
	assert_eq "$(jq -r '.weights.names["w.lab.example"].periods | length' "$dir/clocks.json")" 2 \
		"$who: the weights' periods of w.lab.example (the drain began the second)"
	assert_eq "$(jq -r '.weights.names["w.lab.example"].periods[1].weights.a' "$dir/clocks.json")" 0 \
		"$who: a's weight in the second period"
}

# ttl_and_record WHO DIR: the set-ttl and the add-record on the wire
ttl_and_record() {
	local who=$1 dir=$2 t_lower t_add t_began
	t_lower=$(applied "$dir" lower 2024010102)
	t_add=$(applied "$dir" add 2024010103)
	answers "$dir" >"$dir/answers"
	assert_eq "$(awk '$2 == "www.lab.example" { print $4; exit }' "$dir/answers")" 4 \
		"$who: www.lab.example's first answer's TTL"
	assert_eq "$(awk -v t="$t_lower" '$2 == "www.lab.example" && $1 > t { print $4; exit }' "$dir/answers")" 1 \
		"$who: www.lab.example's first answer's TTL after the set-ttl"
	assert_ge "$(awk -v t="$t_add" '$2 == "new.lab.example" && $3 == 3 && $1 < t' "$dir/answers" | wc -l)" 1 \
		"$who: NXDOMAINs for new.lab.example before the add-record"
	assert_eq "$(awk -v t="$t_add" '$2 == "new.lab.example" && $1 > t && $3 != 0' "$dir/answers" | wc -l)" 0 \
		"$who: answers for new.lab.example other than NOERROR after the add-record"
	# its address: on some answer, and on none before the add-record began
	# (the answer may come before authority_changed, which waits on the
	# server's reload: a gdnsdctl beside four labs returned 1 s late, and
	# the client then held the answer for its 60 s)
	t_began=$(json "$dir/lab.events.jsonl" 'select(.event == "event_applied" and .name == "add") | .t')
	assert_ge "$(awk '$2 == "new.lab.example" && $5 == "198.19.1.2"' "$dir/answers" | wc -l)" 1 \
		"$who: answers for new.lab.example with its address"
	assert_eq "$(awk -v t="$t_began" '$2 == "new.lab.example" && $1 < t && $5 == "198.19.1.2"' "$dir/answers" | wc -l)" 0 \
		"$who: answers for new.lab.example with its address before the add-record began"
}

# --- 1. PowerDNS
r=$out/pdns
run_valid "$out/pdns.txt" "$ini" --set name=$lab -q --out "$r" || fail "the run: $(tail -20 "$out/pdns.txt")"
ttl_and_record PowerDNS "$r"
drained PowerDNS "$r"
grep -q "Zone 'lab.example' .* reloaded" "$r/ns.pdns.log" || fail "PowerDNS's log says no reload"
echo "ok: PowerDNS took the three changes, each on the wire"
assert_no_leftovers $lab "$r"

# --- 2. gdnsd
sed -e 's/^impl = pdns$/impl = gdnsd/' "$ini" >"$out/gdnsd.ini"
g=$out/gdnsd
run_valid "$out/gdnsd.txt" "$out/gdnsd.ini" --set name=$lab -q --out "$g" || fail "the run: $(tail -20 "$out/gdnsd.txt")"
ttl_and_record gdnsd "$g"
grep -q "Reloading zone data successful" "$g/ns.gdnsd.log" || fail "gdnsd's log says no reload"
drained gdnsd "$g"
grep -q "REPLACE\[old daemon\]: Exiting cleanly at request of new daemon" "$g/ns.gdnsd.log" ||
	fail "gdnsd's log says no takeover: $(grep REPLACE "$g/ns.gdnsd.log")"
assert_eq "$(json "$g/lab.events.jsonl" 'select(.event == "agent_exited" and .agent == "gdnsd" and .expected == true) | .pid' | wc -l)" 1 \
	"the replaced gdnsd's expected exits"
echo "ok: gdnsd took the three changes, each on the wire (the weight by a new instance)"
assert_no_leftovers $lab "$g"

# --- 3. refused at check
sed -e 's/^action = add-record$/action = remove-record/' "$ini" >"$out/remove.ini"
check_refused "a remove-record of nothing" "remove.ini:[0-9]*: \[event add\]: new.lab.example. has no A record" "$out/remove.ini"
check_left_nothing
rm -rf "$out" # kept only when a check fails
echo "PASS: test_authority_changes"
