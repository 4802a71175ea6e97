/*
 * owd: the one-way delays of a capture of blast's datagrams (bench/links).
 *
 *   owd -r PCAP [-d DELAY] [-j 'JITTER [DIST]'] [-s SEED]
 *
 * Each captured request carries its send time (lib/wire.h, CLOCK_REALTIME,
 * stamped by blast just before its sendmmsg); the capture's nanosecond time
 * stamp is its arrival, on the same clock. Prints, one "KEY VALUE" a line:
 * the datagrams captured, distinct sequence numbers, the delay's p50, p90,
 * p95, p99, p99.9, min, max and mean in microseconds; and, given the configured
 * impairment (-d, -j, as a topology writes them), the same percentiles of
 * a million of lib/impair's draws: what the delay line was asked for.
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "impair.h"
#include "wire.h"

#define OWD_DRAWS 1000000

static int owd_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static double owd_pct(const int64_t *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	return (double)v[i] / 1e3;
}

static void owd_print(const char *prefix, int64_t *v, size_t n)
{
	double sum = 0;

	qsort(v, n, sizeof(*v), owd_cmp);
	for (size_t i = 0; i < n; i++)
		sum += (double)v[i];
	printf("%s_p50_us %.1f\n%s_p90_us %.1f\n%s_p95_us %.1f\n%s_p99_us %.1f\n%s_p999_us %.1f\n"
	       "%s_min_us %.1f\n%s_max_us %.1f\n%s_mean_us %.1f\n",
	       prefix, owd_pct(v, n, 0.5), prefix, owd_pct(v, n, 0.9), prefix, owd_pct(v, n, 0.95),
	       prefix, owd_pct(v, n, 0.99), prefix, owd_pct(v, n, 0.999), prefix,
	       (double)v[0] / 1e3, prefix, (double)v[n - 1] / 1e3, prefix, sum / (double)n / 1e3);
}

/* owd_udp: the UDP payload of an Ethernet frame, or NULL */
static const uint8_t *owd_udp(const uint8_t *p, size_t caplen, size_t *len)
{
	size_t ihl;

	if (caplen < 14 + 20 || p[12] != 0x08 || p[13] != 0x00)
		return NULL;
	p += 14;
	caplen -= 14;
	ihl = (size_t)(p[0] & 0x0f) * 4;
	if ((p[0] >> 4) != 4 || p[9] != 17 || caplen < ihl + 8)
		return NULL;
	*len = caplen - ihl - 8;
	return p + ihl + 8;
}

int main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	const char *file = NULL, *what;
	struct impair im = {0};
	struct pcap_pkthdr *h;
	const u_char *data;
	int64_t *d = NULL;
	uint8_t *seen = NULL;
	size_t n = 0, cap = 0, distinct = 0, seen_len = 0;
	unsigned long seed = 1;
	int ch, rc, have_im = 0;
	pcap_t *pc;

	while ((ch = getopt(argc, argv, "r:d:j:s:")) != -1) {
		switch (ch) {
		case 'r':
			file = optarg;
			break;
		case 'd':
		case 'j':
			if (impair_parse(&im, ch == 'd' ? "delay" : "jitter", optarg, &what) ==
			    -1) {
				fprintf(stderr, "owd: -%c: expected %s\n", ch, what);
				return 2;
			}
			have_im = 1;
			break;
		case 's':
			seed = strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr,
				"usage: owd -r PCAP [-d DELAY] [-j 'JITTER [DIST]'] [-s SEED]\n");
			return 2;
		}
	}
	if (file == NULL) {
		fprintf(stderr, "usage: owd -r PCAP [-d DELAY] [-j 'JITTER [DIST]'] [-s SEED]\n");
		return 2;
	}
	pc = pcap_open_offline_with_tstamp_precision(file, PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (pc == NULL) {
		fprintf(stderr, "owd: %s\n", errbuf);
		return 1;
	}
	while ((rc = pcap_next_ex(pc, &h, &data)) == 1) {
		struct wire_msg m;
		const uint8_t *pl;
		size_t len;
		int64_t rx = (int64_t)h->ts.tv_sec * 1000000000LL + h->ts.tv_usec;

		if ((pl = owd_udp(data, h->caplen, &len)) == NULL ||
		    wire_decode(pl, len, &m) == -1 || m.type != WIRE_REQUEST)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			if ((d = realloc(d, cap * sizeof(*d))) == NULL)
				return 1;
		}
		d[n++] = rx - (int64_t)m.sent_ns;
		if (m.seq >= seen_len) {
			size_t nl = (m.seq + 1) * 2;

			if ((seen = realloc(seen, nl)) == NULL)
				return 1;
			memset(seen + seen_len, 0, nl - seen_len);
			seen_len = nl;
		}
		distinct += !seen[m.seq];
		seen[m.seq] = 1;
	}
	pcap_close(pc);
	printf("captured %zu\ndistinct %zu\n", n, distinct);
	if (n)
		owd_print("owd", d, n);
	if (have_im) {
		struct impair_sampler s;
		int64_t *e = malloc(OWD_DRAWS * sizeof(*e));

		if (e == NULL)
			return 1;
		impair_sampler_init(&s, &im, seed);
		for (size_t i = 0; i < OWD_DRAWS; i++)
			e[i] = impair_sample_delay_ns(&s);
		owd_print("want", e, OWD_DRAWS);
		free(e);
	}
	free(d);
	free(seen);
	return 0;
}
