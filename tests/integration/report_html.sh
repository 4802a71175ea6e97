# Shared by the tests that check a run's report.html in a real browser
# (sourced after lib.sh; test_compare_failover.sh): Debian's chromium,
# headless, opens RUNDIR/report.html from the disk, and the page must load
# with no console message (an uncaught error is one), its plot must hold
# exactly decay.csv's points, its verdict and clocks must be clocks.json's,
# and its screenshot must not be blank. Two starts of chromium: about 5 s.

# report_html_check RUNDIR: the checks above; fails the test on the first
# that does not hold
report_html_check() {
	local rundir=$1 page=$1/report.html tmp rc=0
	command -v chromium >/dev/null || fail "no chromium (make deps installs it)"
	[ -s "$page" ] || fail "no $page"
	# one file: nothing the page would fetch (a src or href to a network
	# address); the SVG namespace is a name, not a request
	if grep -Eo '(src|href)="[a-z]+://[^"]*' "$page" | sed -n 1,3p | grep .; then
		fail "report.html refers to the network"
	fi
	echo "ok: report.html is one file of $(stat -c %s "$page") bytes, nothing fetched"
	tmp=$(mktemp -d /tmp/steerlab-html.XXXXXX)
	# --dump-dom: the DOM after the page's script ran; the console on
	# stderr (--enable-logging=stderr: "...:CONSOLE(N)] "message", source:")
	timeout 60 chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
		--enable-logging=stderr --v=0 --dump-dom "file://$(realpath "$page")" \
		>"$tmp/dom.html" 2>"$tmp/console.log" || rc=$?
	[ "$rc" = 0 ] || { rm -rf "$tmp"; fail "chromium --dump-dom exited with $rc"; }
	if grep -F ':CONSOLE' "$tmp/console.log"; then
		rm -rf "$tmp"
		fail "report.html wrote to the browser's console (above)"
	fi
	echo "ok: report.html loads in chromium with no console message"
	python3 tests/integration/report_html_dom.py "$tmp/dom.html" "$rundir/decay.csv" \
		"$rundir/clocks.json" || { rm -rf "$tmp"; fail "report.html differs from the run's files"; }
	rc=0
	timeout 60 chromium --headless=new --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
		--hide-scrollbars --window-size=1280,2000 --screenshot="$tmp/shot.png" \
		"file://$(realpath "$page")" >/dev/null 2>&1 || rc=$?
	[ "$rc" = 0 ] && [ -s "$tmp/shot.png" ] || { rm -rf "$tmp"; fail "chromium made no screenshot ($rc)"; }
	python3 tests/integration/report_html_dom.py --png "$tmp/shot.png" ||
		{ rm -rf "$tmp"; fail "the screenshot of report.html is blank"; }
	rm -rf "$tmp"
}
