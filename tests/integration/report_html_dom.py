#!/usr/bin/env python3
"""What report_html.sh checks in the DOM chromium dumped of report.html:
the points the page's script plotted (its <pre id="plotted">, "curve t_end
share" a line) are decay.csv's, each curve's every non-empty share, no
more; the verdict is clocks.json's (valid, and the warnings' codes); each
clock of the clocks table is clocks.json's value (data-value) and shows it
(rounded to 3 decimals), with its uncertainty in a lab over several hosts
(data-u, and "± U ms" after it). With --png FILE: the screenshot is not blank (more
than 16 colours), decoded with zlib alone. Exit 1 with the reason."""
import csv
import html.parser
import json
import struct
import sys
import zlib

sys.stdout.reconfigure(line_buffering=True)


def fail(msg):
    print("FAIL: report.html: " + msg, file=sys.stderr)
    sys.exit(1)


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.plotted = None
        self.in_plotted = False
        self.verdict = None
        self.warnings = []
        self.cells = []  # (scheme, key, data-value, shown text, data-u or None)
        self.cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "pre" and a.get("id") == "plotted":
            self.in_plotted = True
            self.plotted = ""
        if a.get("id") == "verdict":
            self.verdict = a.get("data-valid")
        if tag == "li" and "data-code" in a:
            self.warnings.append(a["data-code"])
        if tag == "td" and "data-key" in a:
            self.cell = [a["data-scheme"], a["data-key"], a["data-value"], "", a.get("data-u")]

    def handle_endtag(self, tag):
        if tag == "pre":
            self.in_plotted = False
        if tag == "td" and self.cell:
            self.cells.append(tuple(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.in_plotted:
            self.plotted += data
        if self.cell:
            self.cell[3] += data


def check_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + ": not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                fail(path + ": a PNG of depth %d, colour type %d" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    colours = set()
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            for x in range(0, stride, bpp * 2):
                colours.add(bytes(line[x:x + 3]))
        prev = line
    if len(colours) <= 16:
        fail("%s: %d colours: a blank page" % (path, len(colours)))
    print("ok: the screenshot of report.html (%dx%d) has %d colours" % (w, h, len(colours)))


def main():
    if sys.argv[1] == "--png":
        check_png(sys.argv[2])
        return
    dom_path, csv_path, clocks_path = sys.argv[1:4]
    dom = Dom()
    dom.feed(open(dom_path, encoding="utf-8").read())
    clocks = json.load(open(clocks_path))
    # the plot: decay.csv's shares, point for point
    if dom.plotted is None:
        fail("no <pre id=plotted>: the plot's script did not run")
    plotted = {}
    for line in dom.plotted.splitlines():
        name, t, v = line.split()
        plotted[(name, float(t))] = float(v)
    want = {}
    with open(csv_path) as f:
        rows = csv.DictReader(l for l in f if not l.startswith("#"))
        for row in rows:
            for col, v in row.items():
                if col.endswith("_share") and v != "":
                    want[(col[:-len("_share")], float(row["t_end_s"]))] = float(v)
    if not want:
        fail("decay.csv has no share: nothing to compare")
    for k, v in want.items():
        if k not in plotted:
            fail("decay.csv's %s at %g s (%g) is not plotted" % (k[0], k[1], v))
        if plotted[k] != v:
            fail("%s at %g s: plotted %g, decay.csv %g" % (k[0], k[1], plotted[k], v))
    extra = set(plotted) - set(want)
    if extra:
        fail("plotted but not in decay.csv: %s" % sorted(extra)[:3])
    print("ok: the plot holds decay.csv's %d points of %d curves" %
          (len(want), len({k[0] for k in want})))
    # the verdict and the warnings
    valid = "true" if clocks["valid"] else "false"
    if dom.verdict != valid:
        fail("verdict valid=%s, clocks.json's valid=%s" % (dom.verdict, valid))
    codes = [w["code"] for w in clocks["warnings"]]
    if dom.warnings != codes:
        fail("warnings %s, clocks.json's %s" % (dom.warnings, codes))
    # the clocks
    if not dom.cells and clocks.get("schemes"):
        fail("no clocks table")
    for scheme, key, value, shown, u in dom.cells:
        got = clocks["schemes"][scheme].get(key)
        if json.loads(value) != got:
            fail("%s %s: %s, clocks.json's %s" % (scheme, key, value, got))
        text = "-" if got is None else ("%.3f" % got if isinstance(got, float) else str(got))
        # a lab over several hosts: the clock's uncertainty, clocks.json's
        # uncertainty_s, shown after it in ms when above 0
        want = clocks["schemes"][scheme].get("uncertainty_s", {}).get(key[:-2]) \
            if key.endswith("_s") and isinstance(got, float) else None
        if (u is None) != (want is None) or (u is not None and abs(float(u) - want) > 1e-12):
            fail("%s %s: uncertainty %s, clocks.json's %s" % (scheme, key, u, want))
        if want:
            text += " \u00b1 %.3f ms" % (want * 1e3)
        if shown.strip() != text:
            fail("%s %s shows %r, clocks.json's %s" % (scheme, key, shown, got))
    print("ok: the verdict (valid %s, %d warnings) and %d clocks shown are clocks.json's" %
          (valid, len(codes), len(dom.cells)))


main()
