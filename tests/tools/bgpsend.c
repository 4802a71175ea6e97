/*
 * bgpsend: a synthetic BGP-4 exchange over TCP port 179 (RFC 4271), for the
 * test that the collector's router-link captures hold BGP that tshark
 * decodes (tests/integration/test_bgp_capture.sh), without a routing daemon.
 *
 *   bgpsend -l ADDR                    accept one connection on ADDR:179 and
 *                                      read it to its end; print the bytes read
 *   bgpsend -c ADDR -p PREFIX [-a ASN] connect to ADDR:179 and send an OPEN,
 *                                      a KEEPALIVE, an UPDATE announcing PREFIX
 *                                      and an UPDATE withdrawing it, then close
 *
 * The messages are well-formed (marker, length, type; the OPEN's version 4,
 * AS, hold time 9 s, BGP identifier; the UPDATE's ORIGIN, AS_PATH and
 * NEXT_HOP attributes) but no session is negotiated: the listener only
 * reads. Exit status 0, or 1 with a message.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BGP_PORT 179
#define BGP_OPEN 1
#define BGP_UPDATE 2
#define BGP_KEEPALIVE 4

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr, "usage: bgpsend -l ADDR | -c ADDR -p PREFIX [-a ASN]\n");
	exit(1);
}

static size_t put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return 2;
}

/* bgp_msg: the 19-byte header (marker of ones, length, type) before body */
static size_t bgp_msg(uint8_t *out, int type, const uint8_t *body, size_t len)
{
	memset(out, 0xff, 16);
	put16(out + 16, (unsigned)(19 + len));
	out[18] = (uint8_t)type;
	memcpy(out + 19, body, len);
	return 19 + len;
}

static size_t bgp_open(uint8_t *out, unsigned asn, struct in_addr id)
{
	uint8_t b[10];

	b[0] = 4; /* version */
	put16(b + 1, asn);
	put16(b + 3, 9); /* hold time */
	memcpy(b + 5, &id, 4);
	b[9] = 0; /* no optional parameters */
	return bgp_msg(out, BGP_OPEN, b, sizeof(b));
}

/* bgp_prefix: a prefix as NLRI, its length then its significant bytes */
static size_t bgp_prefix(uint8_t *p, struct in_addr a, int len)
{
	p[0] = (uint8_t)len;
	memcpy(p + 1, &a, (size_t)(len + 7) / 8);
	return 1 + (size_t)(len + 7) / 8;
}

static size_t bgp_announce(uint8_t *out, unsigned asn, struct in_addr nh, struct in_addr pfx,
			   int len)
{
	uint8_t b[64], *attrs;
	size_t n = 0, a = 0;

	n += put16(b + n, 0); /* no withdrawn routes */
	attrs = b + n + 2;
	/* ORIGIN IGP */
	attrs[a++] = 0x40, attrs[a++] = 1, attrs[a++] = 1, attrs[a++] = 0;
	/* AS_PATH: one AS_SEQUENCE of one 2-byte AS */
	attrs[a++] = 0x40, attrs[a++] = 2, attrs[a++] = 4, attrs[a++] = 2, attrs[a++] = 1;
	a += put16(attrs + a, asn);
	/* NEXT_HOP */
	attrs[a++] = 0x40, attrs[a++] = 3, attrs[a++] = 4;
	memcpy(attrs + a, &nh, 4);
	a += 4;
	n += put16(b + n, (unsigned)a);
	n += a;
	n += bgp_prefix(b + n, pfx, len);
	return bgp_msg(out, BGP_UPDATE, b, n);
}

static size_t bgp_withdraw(uint8_t *out, struct in_addr pfx, int len)
{
	uint8_t b[16], w[8];
	size_t wl = bgp_prefix(w, pfx, len), n = 0;

	n += put16(b + n, (unsigned)wl);
	memcpy(b + n, w, wl);
	n += wl;
	n += put16(b + n, 0); /* no attributes */
	return bgp_msg(out, BGP_UPDATE, b, n);
}

static int do_listen(struct in_addr addr)
{
	struct sockaddr_in sa = {
	    .sin_family = AF_INET, .sin_port = htons(BGP_PORT), .sin_addr = addr};
	int one = 1, fd, c;
	long total = 0;
	uint8_t buf[4096];
	ssize_t n;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 || listen(fd, 1) == -1) {
		fprintf(stderr, "bgpsend: listen on %s:%d: %s\n", inet_ntoa(addr), BGP_PORT,
			strerror(errno));
		return 1;
	}
	/* ready: the caller waits for this line before connecting */
	printf("listening\n");
	fflush(stdout);
	if ((c = accept(fd, NULL, NULL)) == -1) {
		fprintf(stderr, "bgpsend: accept: %s\n", strerror(errno));
		return 1;
	}
	while ((n = read(c, buf, sizeof(buf))) > 0)
		total += n;
	printf("read %ld bytes\n", total);
	close(c);
	close(fd);
	return n == 0 ? 0 : 1;
}

static int do_send(struct in_addr addr, struct in_addr pfx, int len, unsigned asn)
{
	struct sockaddr_in sa = {
	    .sin_family = AF_INET, .sin_port = htons(BGP_PORT), .sin_addr = addr};
	struct sockaddr_in me;
	socklen_t mlen = sizeof(me);
	uint8_t out[512];
	size_t n = 0;
	int fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    getsockname(fd, (struct sockaddr *)&me, &mlen) == -1) {
		fprintf(stderr, "bgpsend: connect to %s:%d: %s\n", inet_ntoa(addr), BGP_PORT,
			strerror(errno));
		return 1;
	}
	n += bgp_open(out + n, asn, me.sin_addr);
	n += bgp_msg(out + n, BGP_KEEPALIVE, NULL, 0);
	n += bgp_announce(out + n, asn, me.sin_addr, pfx, len);
	n += bgp_withdraw(out + n, pfx, len);
	if (write(fd, out, n) != (ssize_t)n) {
		fprintf(stderr, "bgpsend: write: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	printf("sent %zu bytes: OPEN, KEEPALIVE, UPDATE (announce), UPDATE (withdraw)\n", n);
	return 0;
}

int main(int argc, char *argv[])
{
	const char *listen_addr = NULL, *connect_addr = NULL, *prefix = NULL;
	struct in_addr addr, pfx;
	unsigned long asn = 65001;
	char buf[32], *slash;
	int ch, len;

	while ((ch = getopt(argc, argv, "l:c:p:a:")) != -1) {
		switch (ch) {
		case 'l':
			listen_addr = optarg;
			break;
		case 'c':
			connect_addr = optarg;
			break;
		case 'p':
			prefix = optarg;
			break;
		case 'a':
			asn = strtoul(optarg, NULL, 10);
			if (asn == 0 || asn > 65535)
				usage();
			break;
		default:
			usage();
		}
	}
	if ((listen_addr == NULL) == (connect_addr == NULL) ||
	    inet_pton(AF_INET, listen_addr ? listen_addr : connect_addr, &addr) != 1)
		usage();
	if (listen_addr)
		return do_listen(addr);
	if (prefix == NULL || strlen(prefix) >= sizeof(buf))
		usage();
	snprintf(buf, sizeof(buf), "%s", prefix);
	if ((slash = strchr(buf, '/')) == NULL)
		usage();
	*slash = '\0';
	len = atoi(slash + 1);
	if (inet_pton(AF_INET, buf, &pfx) != 1 || len < 0 || len > 32)
		usage();
	return do_send(addr, pfx, len, (unsigned)asn);
}
