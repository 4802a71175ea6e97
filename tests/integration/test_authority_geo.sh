#!/usr/bin/env bash
# Geolocation on PowerDNS and gdnsd (docs/authorities.md, "Geolocation";
# tests/integration/data/authority-geo.ini): g1's network maps to a, every
# other querier to the default b, a falls back to c; a is killed at 2 s.
# With each server: a valid run; g1 answered by a, then by c (its
# fallback), never by b (the default); g2 by b alone; the server's own
# configuration holds the map (PowerDNS: netmask() in the LUA record;
# gdnsd: the geoip plugin's nets). And the refusals: latency on both, a
# geolocation without a default on gdnsd.
# about 25 s
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

lab=it-authgeo
lab_guard $lab
out=$(mktemp -d /tmp/steerlab-it.XXXXXX)
trap 'lab_cleanup '$lab'' EXIT
ini=tests/integration/data/authority-geo.ini

# sites WHO DIR CLIENT: CLIENT's answered requests' sites, in order, each
# once a run ("a c")
sites() {
	awk -F, '/^[0-9]/ && $4 == "ok" && $5 != last { printf "%s%s", sep, $5; sep = " "; last = $5 }' \
		"$2/requests-$3-dns.csv"
}

geo() { # WHO DIR: the clients' sites as the map and the fallback say
	local who=$1 dir=$2 s
	s=$(sites "$who" "$dir" g1)
	[ "$s" = "a c" ] || fail "$who: g1 was answered by '$s', not a then c (its fallback)"
	s=$(sites "$who" "$dir" g2)
	[ "$s" = b ] || fail "$who: g2 was answered by '$s', not b (the default) alone"
	echo "ok: $who: g1 on a, then c (a's fallback, not the default b); g2 on b"
}

# --- PowerDNS
run_valid "$out/pdns.txt" "$ini" --set name=$lab -q --out "$out/pdns" || fail "the run: $(tail -20 "$out/pdns.txt")"
geo PowerDNS "$out/pdns"
grep -q "netmask({'198.18.0.16/30'})" "$out/pdns/ns.pdns/lab.example.zone" || fail "no netmask() in the LUA record"
assert_no_leftovers $lab "$out/pdns"

# --- gdnsd
sed 's/^impl = pdns$/impl = gdnsd/' "$ini" >"$out/gdnsd.ini"
run_valid "$out/gdnsd.txt" "$out/gdnsd.ini" --set name=$lab -q --out "$out/gdnsd" || fail "the run: $(tail -20 "$out/gdnsd.txt")"
geo gdnsd "$out/gdnsd"
grep -q "198.18.0.16/30 => \[ a, c, b \]" "$out/gdnsd/ns.gdnsd/config" || fail "no nets map in gdnsd's config"
assert_no_leftovers $lab "$out/gdnsd"

# --- refusals at check
sed -e '/^geo = \|^default = \|^fallback = \|^# g1/d' -e 's/^policy = geolocation$/policy = latency/' \
	-e 's/^sites = a b c$/sites = a b c\nvantage = 0.0.0.0\/0 p1/' "$ini" >"$out/latency.ini"
printf '\n[prober p1]\nlink = core\n' >>"$out/latency.ini"
check_refused "latency on pdns" "latency.ini:[0-9]*: \[name www.lab.example\] policy = latency: pdns cannot express this (latency: pickclosest()" "$out/latency.ini"
sed -i 's/^impl = pdns$/impl = gdnsd/' "$out/latency.ini"
check_refused "latency on gdnsd" "latency.ini:[0-9]*: \[name www.lab.example\] policy = latency: gdnsd cannot express this" "$out/latency.ini"
sed -e '/^default = b$/d' "$out/gdnsd.ini" >"$out/nodefault.ini"
check_refused "a geolocation without a default on gdnsd" "nodefault.ini:[0-9]*: \[name www.lab.example\] policy = geolocation: gdnsd cannot express this (geolocation without a default" "$out/nodefault.ini"
check_left_nothing
rm -rf "$out"
echo "PASS: test_authority_geo"
