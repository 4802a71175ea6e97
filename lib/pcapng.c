/* A pcapng writer: sections, interfaces, packets with comments; see pcapng.h. */
#include "pcapng.h"

#include <errno.h>
#include <string.h>

#define PCAPNG_SHB 0x0A0D0D0Au
#define PCAPNG_IDB 0x00000001u
#define PCAPNG_EPB 0x00000006u
#define PCAPNG_MAGIC 0x1A2B3C4Du
#define PCAPNG_OPT_END 0
#define PCAPNG_OPT_COMMENT 1
#define PCAPNG_IF_NAME 2
#define PCAPNG_IF_TSRESOL 9
#define PCAPNG_SHB_USERAPPL 4
/* an option's value is at most 65535 bytes (its 16-bit length) */
#define PCAPNG_OPT_MAX 65535u

static size_t pcapng_pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

/* pcapng_opt_size: the bytes of an option of len bytes, padded */
static size_t pcapng_opt_size(size_t len)
{
	return 4 + pcapng_pad4(len);
}

static int pcapng_put(struct pcapng_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->fp) != n) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

static int pcapng_u32(struct pcapng_writer *w, uint32_t v)
{
	return pcapng_put(w, &v, sizeof(v));
}

static int pcapng_opt(struct pcapng_writer *w, uint16_t code, const void *val, size_t len)
{
	static const uint8_t zero[4];
	uint16_t h[2] = {code, (uint16_t)len};

	if (pcapng_put(w, h, sizeof(h)) == -1 || pcapng_put(w, val, len) == -1)
		return -1;
	return pcapng_put(w, zero, pcapng_pad4(len) - len);
}

static int pcapng_end_opts(struct pcapng_writer *w)
{
	return pcapng_u32(w, 0); /* opt_endofopt: code 0, length 0 */
}

int pcapng_begin(struct pcapng_writer *w, FILE *fp, const char *appl)
{
	size_t alen = appl ? strlen(appl) : 0, total;
	uint16_t version[2] = {1, 0};
	int64_t section_len = -1;

	if (alen > PCAPNG_OPT_MAX) {
		errno = EINVAL;
		return -1;
	}
	w->fp = fp;
	w->nifs = 0;
	total = 28 + (alen ? pcapng_opt_size(alen) + 4 : 0);
	if (pcapng_u32(w, PCAPNG_SHB) == -1 || pcapng_u32(w, (uint32_t)total) == -1 ||
	    pcapng_u32(w, PCAPNG_MAGIC) == -1 || pcapng_put(w, version, sizeof(version)) == -1 ||
	    pcapng_put(w, &section_len, sizeof(section_len)) == -1)
		return -1;
	if (alen &&
	    (pcapng_opt(w, PCAPNG_SHB_USERAPPL, appl, alen) == -1 || pcapng_end_opts(w) == -1))
		return -1;
	return pcapng_u32(w, (uint32_t)total);
}

int pcapng_interface(struct pcapng_writer *w, const char *name, int linktype, uint32_t snaplen,
		     int tsresol)
{
	size_t nlen = strlen(name), total;
	uint16_t lt[2] = {(uint16_t)linktype, 0};
	uint8_t res = (uint8_t)tsresol;

	if (nlen > PCAPNG_OPT_MAX || linktype < 0 || linktype > 0xffff || tsresol < 0 ||
	    tsresol > 127) {
		errno = EINVAL;
		return -1;
	}
	total = 20 + pcapng_opt_size(nlen) + pcapng_opt_size(1) + 4;
	if (pcapng_u32(w, PCAPNG_IDB) == -1 || pcapng_u32(w, (uint32_t)total) == -1 ||
	    pcapng_put(w, lt, sizeof(lt)) == -1 || pcapng_u32(w, snaplen) == -1 ||
	    pcapng_opt(w, PCAPNG_IF_NAME, name, nlen) == -1 ||
	    pcapng_opt(w, PCAPNG_IF_TSRESOL, &res, 1) == -1 || pcapng_end_opts(w) == -1 ||
	    pcapng_u32(w, (uint32_t)total) == -1)
		return -1;
	return (int)w->nifs++;
}

int pcapng_packet(struct pcapng_writer *w, uint32_t ifid, uint64_t ts, const uint8_t *data,
		  uint32_t caplen, uint32_t origlen, const char *const *comments, int ncomments)
{
	static const uint8_t zero[4];
	size_t total = 32 + pcapng_pad4(caplen), opts = 0;

	if (ifid >= w->nifs || caplen > origlen) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < ncomments; i++) {
		if (strlen(comments[i]) > PCAPNG_OPT_MAX) {
			errno = EINVAL;
			return -1;
		}
		opts += pcapng_opt_size(strlen(comments[i]));
	}
	if (opts)
		total += opts + 4;
	if (total > UINT32_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (pcapng_u32(w, PCAPNG_EPB) == -1 || pcapng_u32(w, (uint32_t)total) == -1 ||
	    pcapng_u32(w, ifid) == -1 || pcapng_u32(w, (uint32_t)(ts >> 32)) == -1 ||
	    pcapng_u32(w, (uint32_t)ts) == -1 || pcapng_u32(w, caplen) == -1 ||
	    pcapng_u32(w, origlen) == -1 || pcapng_put(w, data, caplen) == -1 ||
	    pcapng_put(w, zero, pcapng_pad4(caplen) - caplen) == -1)
		return -1;
	for (int i = 0; i < ncomments; i++)
		if (pcapng_opt(w, PCAPNG_OPT_COMMENT, comments[i], strlen(comments[i])) == -1)
			return -1;
	if (opts && pcapng_end_opts(w) == -1)
		return -1;
	return pcapng_u32(w, (uint32_t)total);
}
