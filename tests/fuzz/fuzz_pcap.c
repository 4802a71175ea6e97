/*
 * libFuzzer target: the clocks' capture reader (probes/clocks/
 * clocks_pcap.c, its own reader of classic pcaps and its libpcap path for
 * the rest) against libpcap itself on the same bytes (pcap_next_ex over
 * fmemopen): the same packets (time, captured length, bytes, link type),
 * the same stop (a clean end, or the same warning at the same packet), the
 * same refusal of a file it cannot read. A disagreement aborts. Each
 * packet also goes through the decoders the clocks use on it
 * (clocks_decode.c), the reader's fast request test against the full one.
 *
 * What the clocks add to libpcap is taken into the reference: a record
 * whose fraction of a second is a second or more, or whose seconds do not
 * fit 64-bit nanoseconds, ends the file, and a classic pcap's seconds and
 * fraction are unsigned (clocks_pcap.c).
 *
 *   make fuzz-run-pcap   # from tests/fuzz/corpus/pcap/
 */
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clocks_int.h"
#include "timeutil.h"

struct pkt {
	int64_t t_ns;
	size_t caplen;
	uint64_t hash;
	int dlt;
	int swapped_can; /* libpcap rewrote it: a CAN frame of a byte-swapped file */
};

/* what a reader made of the file */
struct seen {
	struct pkt *p;
	size_t n, cap;
	int failed;			  /* refused: err says why */
	char err[PCAP_ERRBUF_SIZE + 128]; /* "PATH: why" */
	char stop[CLOCKS_WARNING_LEN];	  /* the warning it stopped at, or "" */
};

static int fd;
static char path[64];
static struct seen own, ref;

static void add(struct seen *s, int dlt, int64_t t_ns, const u_char *data, size_t caplen)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < caplen; i++)
		h = (h ^ data[i]) * 1099511628211ULL;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		if ((s->p = realloc(s->p, s->cap * sizeof(*s->p))) == NULL)
			abort();
	}
	s->p[s->n++] = (struct pkt){t_ns, caplen, h, dlt, 0};
}

/* can_frame: a Linux cooked frame of SocketCAN (protocol CAN, CAN FD or CAN
 * XL), whose CAN header libpcap byte-swaps when the file's byte order is
 * not the host's (pcap-common.c, swap_pseudo_headers): its bytes are then
 * not the file's, and the clocks never read them (not IPv4) */
static int can_frame(int dlt, const u_char *data, size_t caplen)
{
	size_t at = dlt == DLT_LINUX_SLL ? 14 : dlt == DLT_LINUX_SLL2 ? 0 : SIZE_MAX;
	unsigned proto;

	if (at == SIZE_MAX || caplen < at + 2)
		return 0;
	proto = (unsigned)data[at] << 8 | data[at + 1];
	return proto >= 0x000c && proto <= 0x000e;
}

/* own_packet: kept; and the frame through the decoders the clocks use on
 * it, the reader's fast request test agreeing with the full one */
static int own_packet(struct clocks_input *in, void *capture, int dlt, int64_t t_ns,
		      const u_char *data, size_t caplen)
{
	struct in_addr d1, src;
	struct ipframe u;
	struct clocks_dnsmsg dm;
	struct wire_msg m;
	uint32_t client;
	uint64_t seq;
	int a, b;

	add(capture, dlt, t_ns, data, caplen);
	a = clocks_decode_request(dlt, data, caplen, 7000, &m, &d1);
	b = clocks_request_of(dlt, data, caplen, 7000, &client, &seq, &u);
	/* clocks_decode_request has an IPv4 destination only: 0 for IPv6 */
	if (a != b || (a == 0 && (client != m.client_id || seq != m.seq ||
				  d1.s_addr != (u.family == AF_INET ? u.dst.s_addr : 0)))) {
		fprintf(stderr, "clocks_request_of and clocks_decode_request differ\n");
		abort();
	}
	/* a query the query reader keeps is a message the resolver reader
	 * keeps, a query to port 53 from the same source */
	if (clocks_decode_query(in, dlt, data, caplen, &src) == 0 &&
	    (clocks_decode_dnsmsg(in, dlt, data, caplen, &dm) == -1 || dm.qr || dm.dport != 53 ||
	     dm.src.s_addr != src.s_addr)) {
		fprintf(stderr, "clocks_decode_query and clocks_decode_dnsmsg differ\n");
		abort();
	}
	return 0;
}

static void read_own(void)
{
	struct clocks_input in;
	size_t records = 0;
	int truncated = 0;
	struct clocks_file_marks mk = {&records, &truncated, 0};

	clocks_input_init(&in);
	clocks_pcap_via = CLOCKS_PCAP_VIA_OWN;
	own.failed =
	    clocks_read_pcap(path, &in, own_packet, &own, &mk, own.err, sizeof(own.err)) == -1;
	/* one note at most, and only with the file marked cut short; every
	 * record counted */
	if (in.notes.n > 1 || truncated != (in.notes.n == 1) || (!own.failed && records != own.n)) {
		fprintf(stderr, "%d notes, truncated %d, %zu records for %zu packets\n", in.notes.n,
			truncated, records, own.n);
		abort();
	}
	if (in.notes.n == 1)
		snprintf(own.stop, sizeof(own.stop), "%s", in.notes.w[0].msg);
	clocks_input_free(&in);
}

/* read_ref: libpcap alone, in the precision of the file's magic number */
static void read_ref(const uint8_t *data, size_t size)
{
	char errbuf[PCAP_ERRBUF_SIZE] = "";
	FILE *fp = size ? fmemopen((void *)data, size, "rb") : fopen("/dev/null", "rb");
	struct pcap_pkthdr *h;
	const u_char *pd;
	size_t npkt = 0;
	uint32_t magic = 0;
	int usec, dlt, rc;
	pcap_t *p;

	if (fp == NULL)
		abort();
	if (size >= 4)
		magic = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 |
			data[3];
	usec = magic == 0xa1b2c3d4u || magic == 0xd4c3b2a1u || magic == 0xa1b2cd34u ||
	       magic == 0x34cdb2a1u;
	p = pcap_fopen_offline_with_tstamp_precision(
	    fp, usec ? PCAP_TSTAMP_PRECISION_MICRO : PCAP_TSTAMP_PRECISION_NANO, errbuf);
	if (p == NULL) {
		fclose(fp);
		ref.failed = 1;
		snprintf(ref.err, sizeof(ref.err), "%s: %s", path, errbuf);
		return;
	}
	dlt = pcap_datalink(p);
	if (dlt != DLT_EN10MB && dlt != DLT_LINUX_SLL && dlt != DLT_LINUX_SLL2 && dlt != DLT_RAW &&
	    dlt != DLT_IPV4) {
		ref.failed = 1;
		snprintf(ref.err, sizeof(ref.err), "%s: link type %s;", path,
			 pcap_datalink_val_to_name(dlt));
		pcap_close(p);
		return;
	}
	for (;;) {
		long long off = ftello(pcap_file(p));
		uint32_t frac;
		int64_t sec;

		if ((rc = pcap_next_ex(p, &h, &pd)) != 1)
			break;
		frac = (uint32_t)h->ts.tv_usec;
		if (frac >= (usec ? 1000000u : 1000000000u)) {
			snprintf(ref.stop, sizeof(ref.stop),
				 "%s: after packet %zu: invalid time stamp in the record at byte "
				 "%lld: %u %s past the second; read up to there",
				 path, npkt, off, frac, usec ? "microseconds" : "nanoseconds");
			break;
		}
		sec = pcap_major_version(p) == 2 ? (uint32_t)h->ts.tv_sec : h->ts.tv_sec;
		if (sec < 0 || sec >= INT64_MAX / NSEC_PER_SEC) {
			snprintf(ref.stop, sizeof(ref.stop),
				 "%s: after packet %zu: invalid time stamp in the record at byte "
				 "%lld: %lld seconds, not within 1970..2262; read up to there",
				 path, npkt, off, (long long)sec);
			break;
		}
		add(&ref, dlt, sec * NSEC_PER_SEC + (int64_t)frac * (usec ? 1000 : 1), pd,
		    h->caplen);
		ref.p[ref.n - 1].swapped_can = pcap_is_swapped(p) && can_frame(dlt, pd, h->caplen);
		npkt++;
	}
	if (rc == PCAP_ERROR)
		snprintf(ref.stop, sizeof(ref.stop), "%s: after packet %zu: %s; read up to there",
			 path, npkt, pcap_geterr(p));
	pcap_close(p);
}

static void differ(const char *what)
{
	fprintf(stderr,
		"the clocks' reader and libpcap differ: %s\n"
		"  clocks: %zu packets, %s%s stop \"%s\"\n"
		"  libpcap: %zu packets, %s%s stop \"%s\"\n",
		what, own.n, own.failed ? "refused: " : "", own.failed ? own.err : "", own.stop,
		ref.n, ref.failed ? "refused: " : "", ref.failed ? ref.err : "", ref.stop);
	abort();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if ((fd = memfd_create("capture", MFD_CLOEXEC)) == -1)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ftruncate(fd, 0) == -1 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	own.n = ref.n = 0;
	own.failed = ref.failed = 0;
	own.stop[0] = ref.stop[0] = '\0';
	read_own();
	read_ref(data, size);
	if (own.failed != ref.failed)
		differ("one refused the file");
	if (own.failed) {
		if (strncmp(own.err, ref.err, strlen(ref.err)) != 0)
			differ("refused for other reasons");
		return 0;
	}
	if (own.n != ref.n)
		differ("packet counts");
	for (size_t i = 0; i < own.n; i++)
		if (own.p[i].t_ns != ref.p[i].t_ns || own.p[i].caplen != ref.p[i].caplen ||
		    (own.p[i].hash != ref.p[i].hash && !ref.p[i].swapped_can) ||
		    own.p[i].dlt != ref.p[i].dlt) {
			fprintf(stderr,
				"packet %zu: clocks t_ns %lld caplen %zu dlt %d, libpcap t_ns %lld "
				"caplen %zu dlt %d%s\n",
				i, (long long)own.p[i].t_ns, (size_t)own.p[i].caplen, own.p[i].dlt,
				(long long)ref.p[i].t_ns, (size_t)ref.p[i].caplen, ref.p[i].dlt,
				own.p[i].hash != ref.p[i].hash ? ", the bytes differ" : "");
			differ("a packet");
		}
	if (strcmp(own.stop, ref.stop) != 0)
		differ("where or why the file ends");
	return 0;
}
